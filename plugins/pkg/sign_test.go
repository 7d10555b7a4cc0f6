package pkg

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"aead.dev/minisign"

	"github.com/toolhost/toolhost/internal/testkit/minikey"

	"github.com/toolhost/toolhost/runtime/config"
)

func TestGenerateKeyMakesTheFolderAndAPubFileAndNeverOverwrites(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "not", "yet", "there.key")
	pub, err := GenerateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	pk, err := minisign.PublicKeyFromFile(key + ".pub")
	if err != nil || pk.String() != pub {
		t.Fatalf("%s.pub = %v, %v; want the key printed, %s", key, pk, err, pub)
	}
	if fi, err := os.Stat(filepath.Dir(key)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the new folder: %v %v, want mode 0700", fi.Mode().Perm(), err)
	}
	before, _ := os.ReadFile(key)
	if _, err := GenerateKey(key, ""); !errors.Is(err, ErrKeyExists) {
		t.Errorf("second GenerateKey: %v, want ErrKeyExists", err)
	}
	if after, _ := os.ReadFile(key); string(after) != string(before) {
		t.Error("the key was overwritten")
	}
	asked := false
	k, err := ReadSecretKey(key, func() (string, error) { asked = true; return "", nil })
	if err != nil || asked {
		t.Fatalf("reading an unencrypted key: %v; password asked: %v", err, asked)
	}
	if !minisign.Verify(pk, []byte("m"), SignWithKey(k, []byte("m"))) {
		t.Error("the secret key does not match the .pub")
	}
}

func TestAnEncryptedKeyNeedsItsPassword(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "k.key")
	pub, err := GenerateKey(key, "right")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(key)
	if !minisign.IsEncrypted(text) {
		t.Fatal("a key made with a password is not encrypted")
	}
	sig, err := Sign(key, "right", []byte("m"))
	var pk minisign.PublicKey
	pk.UnmarshalText([]byte(pub))
	if err != nil || !minisign.Verify(pk, []byte("m"), sig) {
		t.Errorf("sign with the right password: %v", err)
	}
	// The refusals on a key of the same format at scrypt's lowest cost:
	// each derivation of a real key costs seconds (minikey says why).
	cheap := filepath.Join(t.TempDir(), "cheap.key")
	minikey.Write(t, cheap, "right")
	if _, err := ReadSecretKey(cheap, func() (string, error) { return "wrong", nil }); !errors.Is(err, ErrWrongPassword) {
		t.Errorf("wrong password: %v, want ErrWrongPassword", err)
	}
	noTTY := errors.New("no terminal")
	if _, err := ReadSecretKey(cheap, func() (string, error) { return "", noTTY }); !errors.Is(err, noTTY) {
		t.Errorf("no password source: %v, want its error", err)
	}
}

func TestConsentTellsUnsignedFromSignedByAnUntrustedKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pub, err := GenerateKey(filepath.Join(dir, "trusted.key"), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateKey(filepath.Join(dir, "stranger.key"), ""); err != nil {
		t.Fatal(err)
	}
	msg := []byte("archive")
	byTrusted, _ := Sign(filepath.Join(dir, "trusted.key"), "", msg)
	byStranger, _ := Sign(filepath.Join(dir, "stranger.key"), "", msg)
	strangerPub, _ := minisign.PublicKeyFromFile(filepath.Join(dir, "stranger.key.pub"))
	var trustedPub minisign.PublicKey
	trustedPub.UnmarshalText([]byte(pub))
	trust := config.Trust{Keys: []string{pub}}
	tests := []struct {
		name string
		sig  []byte
		want string
	}{
		{"no signature is unsigned", nil, "unsigned"},
		{"a trusted key's signature names the key", byTrusted, "signed by key " + keyID(trustedPub.ID())},
		{"a signature by a key not trusted says so", byStranger, "signed by key " + keyID(strangerPub.ID()) + ", which is not in trust.keys (not trusted)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st, err := checkSignature(trust, msg, tt.sig, "plugin x")
			if err != nil {
				t.Fatal(err)
			}
			req := ConsentRequest{Name: "x", Version: "1", Ref: "./x dir.tar.gz", Digest: "sha256:d", Lines: []string{"network access to a.example", "the secret config value token"}, Signature: st}
			d := req.Describe()
			wantText := "Plugin x 1 from ./x dir.tar.gz (sha256:d, " + tt.want + ") asks for:\n  - network access to a.example\n  - the secret config value token\n"
			if d != wantText {
				t.Errorf("Describe =\n%s\nwant\n%s", d, wantText)
			}
			m := &Manager{}
			err = m.consent(t.Context(), req, false)
			if !errors.Is(err, ErrConsentRefused) || err.Error() != wantText+"There is no terminal to ask you here, so nothing was agreed to (consent refused).\nTo agree to the above, run: toolhost plugin add './x dir.tar.gz' --yes" {
				t.Errorf("consent without a terminal = %q", err)
			}
		})
	}
}

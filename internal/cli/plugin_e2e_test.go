package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"aead.dev/minisign"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/internal/testkit/minikey"
)

// The tests in this file are a plugin author's and a plugin user's
// commands, through the built binary.

var compatGuest struct {
	once sync.Once
	wasm []byte
	err  error
}

// compatWasm builds the describe/call test guest once (its whoami tool
// reads the config value "user").
func compatWasm(t *testing.T) []byte {
	t.Helper()
	compatGuest.once.Do(func() {
		var built string
		built, compatGuest.err = e2e.GoBuild(filepath.Join("..", "..", "plugins", "wasm", "testdata", "guests"), wasip1, "-buildmode=c-shared", "./compat")
		if compatGuest.err == nil {
			compatGuest.wasm, compatGuest.err = os.ReadFile(built)
		}
	})
	if compatGuest.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("build test guest: %v", compatGuest.err)
		}
		t.Skipf("skipped: cannot build the test guest: %v", compatGuest.err)
	}
	return compatGuest.wasm
}

func TestPluginKeygenMakesTheFolderAPublicKeyAndAnEncryptedSecretKey(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	key := filepath.Join(p.Home, ".minisign", "toolhost.key") // the folder does not exist
	p.Env = []string{"TOOLHOST_KEY_PASSWORD=correct horse"}
	out, stderr, code := p.Run("", "plugin", "keygen", "--key", key)
	if code != 0 {
		t.Fatalf("keygen: exit %d: %s %s", code, out, stderr)
	}
	text, err := os.ReadFile(key)
	if err != nil || !minisign.IsEncrypted(text) {
		t.Fatalf("secret key %s: %v, encrypted: %v", key, err, minisign.IsEncrypted(text))
	}
	if fi, _ := os.Stat(key); fi.Mode().Perm() != 0o600 {
		t.Errorf("secret key mode %v, want 0600", fi.Mode().Perm())
	}
	pub, err := minisign.PublicKeyFromFile(key + ".pub")
	if err != nil {
		t.Fatalf("%s.pub: %v", key, err)
	}
	if !strings.Contains(out, pub.String()) || !strings.Contains(out, "encrypted") || strings.Contains(out, "NOT encrypted") {
		t.Errorf("keygen output does not show the public key %s and that the key is encrypted:\n%s", pub, out)
	}
	if _, stderr, code := p.Run("", "plugin", "keygen", "--key", key); code == 0 || !strings.Contains(stderr, "already there") {
		t.Errorf("keygen over an existing key: exit %d: %s", code, stderr)
	}

	// Signing decrypts the key with the password; a wrong one is named.
	archive := p.Write("acme.tar.gz", "bytes to sign")
	if out, stderr, code := p.Run("", "plugin", "sign", archive, "--key", key); code != 0 {
		t.Fatalf("sign: exit %d: %s %s", code, out, stderr)
	}
	sig, _ := os.ReadFile(archive + ".minisig")
	if !minisign.Verify(pub, []byte("bytes to sign"), sig) {
		t.Errorf("the signature does not verify with %s.pub", key)
	}
	// The refusals on a key of the same format at scrypt's lowest cost
	// (each derivation of a real key costs seconds; minikey says why).
	cheap := filepath.Join(p.Home, "cheap.key")
	minikey.Write(t, cheap, "correct horse")
	p.Env = []string{"TOOLHOST_KEY_PASSWORD=wrong"}
	if _, stderr, code := p.Run("", "plugin", "sign", archive, "--key", cheap); code == 0 || !strings.Contains(stderr, "password does not decrypt") {
		t.Errorf("sign with a wrong password: exit %d: %s", code, stderr)
	}
	// No password source: say where one comes from.
	p.Env = nil
	if _, stderr, code := p.Run("", "plugin", "sign", archive, "--key", cheap); code == 0 || !strings.Contains(stderr, "TOOLHOST_KEY_PASSWORD") {
		t.Errorf("sign without a password: exit %d: %s", code, stderr)
	}
	other := filepath.Join(p.Home, "keys", "other.key")
	if _, stderr, code := p.Run("", "plugin", "keygen", "--key", other); code == 0 || !strings.Contains(stderr, "TOOLHOST_KEY_PASSWORD") || !strings.Contains(stderr, "--unencrypted") {
		t.Errorf("keygen without a password or terminal: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("keygen without a password wrote %s", other)
	}
	out, stderr, code = p.Run("", "plugin", "keygen", "--key", other, "--unencrypted")
	if text, _ := os.ReadFile(other); code != 0 || minisign.IsEncrypted(text) || !strings.Contains(out, "NOT encrypted") {
		t.Errorf("keygen --unencrypted: exit %d, encrypted %v: %s %s", code, minisign.IsEncrypted(text), out, stderr)
	}
	if _, err := os.Stat(other + ".pub"); err != nil {
		t.Errorf("keygen --unencrypted: %v", err)
	}
}

func TestPluginKeygenAndSignAskThePasswordAtATerminal(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	key := filepath.Join(p.Home, "k", "t.key")
	shown, code := p.RunTerminal("pw1\npw1\n", "plugin", "keygen", "--key", key)
	// (RunTerminal types before the prompt turns echo off, so whether
	// the password is echoed cannot be seen here; term.ReadPassword
	// turns it off.)
	if code != 0 || !strings.Contains(shown, "Password to encrypt") || !strings.Contains(shown, "Password again") {
		t.Fatalf("keygen at a terminal: exit %d: %q", code, shown)
	}
	if text, _ := os.ReadFile(key); !minisign.IsEncrypted(text) {
		t.Fatalf("key not encrypted")
	}
	// Signing asks for the password of a key like it at scrypt's lowest
	// cost (the first test signs with a key keygen made).
	archive := p.Write("a.tar.gz", "x")
	cheap := filepath.Join(p.Home, "k", "cheap.key")
	pub := minikey.Write(t, cheap, "pw1")
	if shown, code := p.RunTerminal("pw1\n", "plugin", "sign", archive, "--key", cheap); code != 0 || !strings.Contains(shown, "Password for") {
		t.Errorf("sign at a terminal: exit %d: %q", code, shown)
	}
	if sig, _ := os.ReadFile(archive + ".minisig"); !minisign.Verify(pub, []byte("x"), sig) {
		t.Error("the signature made at a terminal does not verify")
	}
	if shown, code := p.RunTerminal("pw1\npw2\n", "plugin", "keygen", "--key", key+"2"); code == 0 || !strings.Contains(shown, "passwords differ") {
		t.Errorf("keygen with two different passwords: exit %d: %q", code, shown)
	}
}

// writeAcme puts the test plugin in the project, with config keys and a
// config_schema, and returns its directory.
func writeAcme(t *testing.T, p *e2e.Project) string {
	wasm := compatWasm(t)
	dir := filepath.Join(p.Dir, "vendor", "acme")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "acme.wasm"), wasm, 0o644)
	p.Write("vendor/acme/toolhost-plugin.json", `{"name":"acme","version":"0.1.0","abi":"toolhost-abi 1","modules":["acme.wasm"],
 "capabilities":{"allowed_hosts":["api.acme.example"],"config":{
   "user":{"description":"who you are","required":true},
   "retries":{"description":"how often to retry"},
   "token":{"description":"API token","secret":true,"required":true}}},
 "config_schema":{"type":"object","properties":{"retries":{"type":"integer"},"token":{"type":"string","pattern":"^[0-9a-f]+$"}}}}`)
	return dir
}

func TestPluginAddShowsWhatItAsksAndTheSignatureItHasWithOrWithoutATerminal(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.ShareCompiled()
	dir := writeAcme(t, p)
	if _, stderr, code := p.Run("", "plugin", "pack", dir, "-o", filepath.Join(p.Dir, "acme.tar.gz")); code != 0 {
		t.Fatal(stderr)
	}
	key := filepath.Join(p.Home, "signer.key")
	if _, stderr, code := p.Run("", "plugin", "keygen", "--key", key, "--unencrypted"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := p.Run("", "plugin", "sign", "acme.tar.gz", "--key", key); code != 0 {
		t.Fatal(stderr)
	}
	pub, _ := minisign.PublicKeyFromFile(key + ".pub")
	id := pubID(pub)

	_, stderr, code := p.Run("", "plugin", "add", "./acme.tar.gz")
	if code != 3 {
		t.Fatalf("add without a terminal: exit %d, want 3: %s", code, stderr)
	}
	for _, want := range []string{
		"  - network access to api.acme.example\n",
		"  - the secret config value token\n",
		"signed by key " + id + ", which is not in trust.keys (not trusted)",
		"toolhost plugin add ./acme.tar.gz --yes",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("add without a terminal does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "[network") || strings.Contains(stderr, "unsigned") {
		t.Errorf("add without a terminal prints a Go list or calls a signed package unsigned:\n%s", stderr)
	}
	// At a terminal the same is asked; no agrees to nothing.
	shown, code := p.RunTerminal("n\n", "plugin", "add", "./acme.tar.gz")
	if code != 3 || !strings.Contains(shown, "which is not in trust.keys (not trusted)") || !strings.Contains(shown, "  - the config value user (who you are)\nAllow? [y/N]") {
		t.Errorf("add at a terminal, answered no: exit %d:\n%s", code, shown)
	}
	// The same package without its signature is unsigned.
	os.Rename(filepath.Join(p.Dir, "acme.tar.gz.minisig"), filepath.Join(p.Dir, "saved.minisig"))
	if _, stderr, _ := p.Run("", "plugin", "add", "./acme.tar.gz"); !strings.Contains(stderr, "unsigned)") {
		t.Errorf("an unsigned package is not called unsigned:\n%s", stderr)
	}
	// With the key trusted, it is signed by that key; yes adds it.
	os.Rename(filepath.Join(p.Dir, "saved.minisig"), filepath.Join(p.Dir, "acme.tar.gz.minisig"))
	p.Write("toolhost.json", `{"trust": {"keys": ["`+pub.String()+`"]}}`)
	shown, code = p.RunTerminal("y\n", "plugin", "add", "./acme.tar.gz")
	if code != 0 || !strings.Contains(shown, "signed by key "+id+") asks for:") || !strings.Contains(shown, "added acme 0.1.0") {
		t.Errorf("add at a terminal with the key trusted, answered yes: exit %d:\n%s", code, shown)
	}
}

// pubID is a key id as minisign prints it.
func pubID(pk minisign.PublicKey) string {
	const hex = "0123456789ABCDEF"
	id := pk.ID()
	b := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		b[i] = hex[id&0xF]
		id >>= 4
	}
	return string(b)
}

func TestAPluginWithMissingOrInvalidConfigIsReportedAtAddAndAtStartAndNotOffered(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	p.ShareCompiled()
	writeAcme(t, p)
	commented := "{\n  // the model we use\n  \"model\": \"m\", // keep this comment\n  \"wasm\": {\n    \"acme\": {\"config\": {}}\n  }\n}\n"
	cfgFile := p.Write("toolhost.jsonc", commented)
	out, stderr, code := p.Run("", "plugin", "add", "./vendor/acme", "--yes")
	if code != 0 {
		t.Fatalf("add: exit %d: %s %s", code, out, stderr)
	}
	for _, want := range []string{"wasm.acme.config.user: required (who you are), but not set", `wasm.acme.config.token: required (API token), but not set; it is a secret: set "token_env": "ACME_TOKEN"`} {
		if !strings.Contains(out, want) {
			t.Errorf("add does not report %q:\n%s", want, out)
		}
	}
	got, _ := os.ReadFile(cfgFile)
	want := "{\n  // the model we use\n  \"model\": \"m\", // keep this comment\n  \"wasm\": {\n    \"acme\": {\"config\": {}}\n  },\n  \"plugin\": [\"./vendor/acme\"]\n}\n"
	if string(got) != want {
		t.Errorf("config after add:\n%s\nwant\n%s", got, want)
	}

	tools := func() (string, string) {
		out, stderr, code := p.Run("", "tools")
		if code != 0 {
			t.Fatalf("tools: exit %d: %s", code, stderr)
		}
		return out, stderr
	}
	out, stderr = tools()
	if strings.Contains(out, "acme_whoami") || !strings.Contains(stderr, "wasm.acme.config.user") || !strings.Contains(stderr, "skipped") {
		t.Errorf("with the config missing, tools offers the plugin or does not say why:\n%s\n%s", out, stderr)
	}
	doctor := func() string {
		out, stderr, code := p.Run("", "doctor")
		if code != 0 {
			t.Fatalf("doctor: exit %d: %s", code, stderr)
		}
		return out
	}
	if out := doctor(); !strings.Contains(out, "acme           not loaded (./vendor/acme): plugin acme needs its config set") || !strings.Contains(out, `set "user": "…" in wasm.acme.config`) {
		t.Errorf("doctor does not report the missing config:\n%s", out)
	}

	const secret = "not-hex-SECRET-VALUE"
	p.Env = []string{"ACME_TOKEN=" + secret}
	p.Write("toolhost.jsonc", strings.Replace(string(got), `{"config": {}}`, `{"config": {"user": "ann", "retries": "three", "token_env": "ACME_TOKEN"}}`, 1))
	out, stderr = tools()
	if strings.Contains(out, "acme_whoami") {
		t.Errorf("with an invalid config, tools offers the plugin:\n%s", out)
	}
	for _, want := range []string{"wasm.acme.config.retries: does not match config_schema: got string, want integer", "wasm.acme.config.token: does not match config_schema (pattern); the value is secret and not shown"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("tools does not report %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, secret) {
		t.Errorf("the secret value is printed:\n%s", stderr)
	}
	if out := doctor(); !strings.Contains(out, "want integer") || strings.Contains(out, secret) {
		t.Errorf("doctor does not report the invalid config, or prints the secret:\n%s", out)
	}

	p.Env = []string{"ACME_TOKEN=0ff1ce"}
	p.Write("toolhost.jsonc", strings.Replace(string(got), `{"config": {}}`, `{"config": {"user": "ann", "retries": "3", "token_env": "ACME_TOKEN"}}`, 1))
	out, stderr = tools()
	if !strings.Contains(out, "acme_whoami") || strings.Contains(stderr, "acme") {
		t.Errorf("with a valid config, the plugin is not offered:\n%s\n%s", out, stderr)
	}
	if out := doctor(); !strings.Contains(out, "acme           ok (./vendor/acme)") {
		t.Errorf("doctor does not say the plugin loads:\n%s", out)
	}
	out, stderr, code = p.Run("", "call", "acme_whoami", "{}")
	if code != 0 || !strings.Contains(out, "ann") {
		t.Errorf("acme_whoami: exit %d: %s %s", code, out, stderr)
	}
}

package pkg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"aead.dev/minisign"

	"github.com/toolhost/toolhost/runtime/config"
)

// ErrUnsigned and ErrBadSignature say why a plugin was refused under
// "trust": {"require_signatures": true}.
var (
	ErrUnsigned     = errors.New("plugin is not signed")
	ErrBadSignature = errors.New("plugin signature does not verify")
)

// ErrWrongPassword is returned when a password does not decrypt a
// minisign secret key.
var ErrWrongPassword = errors.New("the password does not decrypt the key")

// ErrKeyExists is returned by GenerateKey rather than overwriting a key.
var ErrKeyExists = errors.New("a key file is already there")

// PasswordEnv is the environment variable scripts set to give the
// password of an encrypted key to `toolhost plugin keygen|sign|push`
// without a terminal.
const PasswordEnv = "TOOLHOST_KEY_PASSWORD"

// Sign signs message (a plugin archive, or an OCI manifest) with a
// minisign secret key file; password may be "" for an unencrypted key.
func Sign(keyFile, password string, message []byte) ([]byte, error) {
	key, err := ReadSecretKey(keyFile, func() (string, error) { return password, nil })
	if err != nil {
		return nil, err
	}
	return minisign.Sign(key, message), nil
}

// ReadSecretKey reads a minisign secret key file. password is called only
// when the key is encrypted (minisign's scrypt format); a password that
// does not decrypt it is ErrWrongPassword.
func ReadSecretKey(keyFile string, password func() (string, error)) (minisign.PrivateKey, error) {
	text, err := os.ReadFile(keyFile)
	if err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("read minisign key: %w", err)
	}
	var key minisign.PrivateKey
	if !minisign.IsEncrypted(text) {
		if err := key.UnmarshalText(text); err != nil {
			return minisign.PrivateKey{}, fmt.Errorf("read minisign key %s: %w; make a key with `toolhost plugin keygen` or `minisign -G`", keyFile, err)
		}
		return key, nil
	}
	pw, err := password()
	if err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("minisign key %s is encrypted: %w", keyFile, err)
	}
	if key, err = minisign.DecryptKey(pw, text); err != nil {
		return minisign.PrivateKey{}, fmt.Errorf("minisign key %s: %w; type it again, or check %s", keyFile, ErrWrongPassword, PasswordEnv)
	}
	return key, nil
}

// SignWithKey signs message with a key read by ReadSecretKey.
func SignWithKey(key minisign.PrivateKey, message []byte) []byte {
	return minisign.Sign(key, message)
}

// GenerateKey makes a minisign key pair the minisign command line reads
// too: the secret key goes to keyFile — encrypted with password in
// minisign's format (scrypt with minisign's own cost, then the key XORed
// with the derived stream and checked by BLAKE2b), or in the clear when
// password is "" — and the public key to keyFile+".pub". The folder is
// created (private to the user) when missing, and an existing key file is
// never overwritten (ErrKeyExists). It returns the public key as the text
// to put in "trust": {"keys": [...]}.
func GenerateKey(keyFile, password string) (string, error) {
	if _, err := os.Lstat(keyFile); err == nil {
		return "", fmt.Errorf("%s: %w; choose another --key, or remove it if you mean to replace it (plugins signed with it will no longer verify)", keyFile, ErrKeyExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("check %s: %w", keyFile, err)
	}
	if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
		return "", fmt.Errorf("create the folder of %s: %w", keyFile, err)
	}
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		return "", err
	}
	var text []byte
	if password != "" {
		text, err = minisign.EncryptKey(password, priv)
	} else {
		text, err = priv.MarshalText()
	}
	if err != nil {
		return "", err
	}
	// O_EXCL: a key that appeared since the check above is not replaced.
	f, err := os.OpenFile(keyFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", keyFile, err)
	}
	_, err = f.Write(append(text, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(keyFile)
		return "", fmt.Errorf("write %s: %w", keyFile, err)
	}
	pubText, _ := pub.MarshalText()
	if err := os.WriteFile(keyFile+".pub", append(pubText, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write %s.pub: %w", keyFile, err)
	}
	return pub.String(), nil
}

// keyID formats a minisign key id as minisign prints it.
func keyID(id uint64) string { return fmt.Sprintf("%016X", id) }

// SignatureStatus is what a person should know about a package's
// signature before trusting it.
type SignatureStatus struct {
	// KeyID is the trusted key that signed the package.
	KeyID string
	// UntrustedKeyID is the key of a signature that is present but whose
	// key is not in trust.keys ("" when KeyID is set or there is none).
	UntrustedKeyID string
}

// String says it in a few words: "signed by key …", "signed by key …,
// which is not trusted", or "unsigned".
func (s SignatureStatus) String() string {
	switch {
	case s.KeyID != "":
		return "signed by key " + s.KeyID
	case s.UntrustedKeyID != "":
		return "signed by key " + s.UntrustedKeyID + ", which is not in trust.keys (not trusted)"
	}
	return "unsigned"
}

// checkSignature applies the trust config to message and its signature
// (nil when unsigned). A signature by a key not trusted counts as no
// signature (its key id is reported in UntrustedKeyID, so a person is not
// told "unsigned" while a .minisig sits next to the package); one that
// fails to verify against a trusted key is always refused.
func checkSignature(trust config.Trust, message, sig []byte, what string) (SignatureStatus, error) {
	if len(sig) == 0 {
		if trust.RequireSignatures {
			return SignatureStatus{}, fmt.Errorf("%s: %w, and trust.require_signatures is on; ask its publisher to sign it (toolhost plugin sign), or trust it by turning require_signatures off", what, ErrUnsigned)
		}
		return SignatureStatus{}, nil
	}
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return SignatureStatus{}, fmt.Errorf("%s: %w: %v", what, ErrBadSignature, err)
	}
	var keys []minisign.PublicKey
	for _, k := range trust.Keys {
		var pk minisign.PublicKey
		if err := pk.UnmarshalText([]byte(strings.TrimSpace(k))); err != nil {
			return SignatureStatus{}, fmt.Errorf("trust.keys: %q is not a minisign public key: %w", k, err)
		}
		keys = append(keys, pk)
	}
	for _, pk := range keys {
		if pk.ID() != s.KeyID {
			continue
		}
		if !minisign.Verify(pk, message, sig) {
			return SignatureStatus{}, fmt.Errorf("%s: %w with key %s: the bytes were changed after signing, or the signature belongs to other bytes", what, ErrBadSignature, keyID(pk.ID()))
		}
		return SignatureStatus{KeyID: keyID(pk.ID())}, nil
	}
	if trust.RequireSignatures {
		return SignatureStatus{}, fmt.Errorf("%s is signed by key %s, which is not in trust.keys; add that key if you trust its publisher", what, keyID(s.KeyID))
	}
	return SignatureStatus{UntrustedKeyID: keyID(s.KeyID)}, nil
}

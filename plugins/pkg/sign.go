package pkg

import (
	"errors"
	"fmt"
	"os"
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

// Sign signs message (a plugin archive, or an OCI manifest) with a
// minisign private key file; password may be "" for an unencrypted key.
func Sign(keyFile, password string, message []byte) ([]byte, error) {
	text, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("read minisign key: %w", err)
	}
	var key minisign.PrivateKey
	if minisign.IsEncrypted(text) {
		key, err = minisign.DecryptKey(password, text)
	} else {
		err = key.UnmarshalText(text)
	}
	if err != nil {
		return nil, fmt.Errorf("read minisign key %s: %w (wrong password?)", keyFile, err)
	}
	return minisign.Sign(key, message), nil
}

// GenerateKey makes a minisign key pair, writes the private key
// (encrypted with password, unless it is "") to keyFile and returns the
// public key as the text to put in "trust": {"keys": [...]}.
func GenerateKey(keyFile, password string) (string, error) {
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
	if err := os.WriteFile(keyFile, text, 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", keyFile, err)
	}
	return pub.String(), nil
}

// keyID formats a minisign key id as minisign prints it.
func keyID(id uint64) string { return fmt.Sprintf("%016X", id) }

// checkSignature applies the trust config to message and its signature
// (nil when unsigned). It returns the id of the trusted key that signed
// it, or "" when the plugin is unsigned and that is allowed. A signature
// by a key not trusted counts as no signature; one that fails to verify
// against a trusted key is always refused.
func checkSignature(trust config.Trust, message, sig []byte, what string) (string, error) {
	if len(sig) == 0 {
		if trust.RequireSignatures {
			return "", fmt.Errorf("%s: %w, and trust.require_signatures is on; ask its publisher to sign it (toolhost plugin sign), or trust it by turning require_signatures off", what, ErrUnsigned)
		}
		return "", nil
	}
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return "", fmt.Errorf("%s: %w: %v", what, ErrBadSignature, err)
	}
	var keys []minisign.PublicKey
	for _, k := range trust.Keys {
		var pk minisign.PublicKey
		if err := pk.UnmarshalText([]byte(strings.TrimSpace(k))); err != nil {
			return "", fmt.Errorf("trust.keys: %q is not a minisign public key: %w", k, err)
		}
		keys = append(keys, pk)
	}
	for _, pk := range keys {
		if pk.ID() != s.KeyID {
			continue
		}
		if !minisign.Verify(pk, message, sig) {
			return "", fmt.Errorf("%s: %w with key %s: the bytes were changed after signing, or the signature belongs to other bytes", what, ErrBadSignature, keyID(pk.ID()))
		}
		return keyID(pk.ID()), nil
	}
	if trust.RequireSignatures {
		return "", fmt.Errorf("%s is signed by key %s, which is not in trust.keys; add that key if you trust its publisher", what, keyID(s.KeyID))
	}
	return "", nil
}

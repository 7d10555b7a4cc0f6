// Package minikey writes minisign secret keys encrypted at scrypt's
// lowest cost, for tests of what is done with an encrypted key (signing
// with it, a wrong password refused, a password asked at a terminal).
//
// A key made by toolhost or minisign costs a 1 GiB scrypt derivation to
// make and another each time it is opened: seconds of CPU apiece, and the
// whole test suite is CPU-bound on two cores. The cost parameters live in
// the key file, so a key written here opens through the same code
// (minisign.DecryptKey) in milliseconds. Tests of making a key keep
// making real ones.
package minikey

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"aead.dev/minisign"
	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/scrypt"
)

// The key file's scrypt cost: libsodium's lowest opslimit, which
// minisign turns into N=1024, r=8, p=1 (1 MiB).
const (
	ops = 1 << 15
	mem = 1 << 30
	n   = 1024
	r   = 8
	p   = 1
)

// Write writes a new key pair encrypted with password to path (and the
// public key to path+".pub", as `minisign -G` does) and returns the
// public key. It fails the test if minisign cannot open what it wrote.
func Write(t testing.TB, path, password string) minisign.PublicKey {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := priv.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(plain), "\n")
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(body))
	if err != nil || len(b) != 158 {
		t.Fatalf("minisign's clear key layout changed: %d bytes, %v", len(b), err)
	}
	// b: algorithm(2) kdf(2) hash(2) salt(32) ops(8) mem(8) then the
	// key id(8) and key(64), and a checksum(32) an encrypted key carries.
	binary.LittleEndian.PutUint16(b[2:], 0x6353) // "Sc"
	salt := b[6:38]
	if _, err := rand.Read(salt); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[38:], ops)
	binary.LittleEndian.PutUint64(b[46:], mem)
	sum := blake2b.Sum256(append(append([]byte(nil), b[0:2]...), b[54:126]...))
	copy(b[126:], sum[:])
	stream, err := scrypt.Key([]byte(password), salt, n, r, p, 104)
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range stream {
		b[54+i] ^= k
	}
	text := "untrusted comment: minisign encrypted secret key\n" + base64.StdEncoding.EncodeToString(b) + "\n"
	if got, err := minisign.DecryptKey(password, []byte(text)); err != nil || !got.Equal(priv) {
		t.Fatalf("minisign cannot open the key written: %v", err)
	}
	pubText, err := pub.MarshalText()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".pub", append(pubText, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return pub
}

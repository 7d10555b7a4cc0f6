package minikey

import (
	"path/filepath"
	"testing"

	"aead.dev/minisign"
)

func TestAWrittenKeyOpensWithItsPasswordOnlyAndSigns(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "k.key")
	pub := Write(t, key, "pw")
	priv, err := minisign.PrivateKeyFromFile("pw", key)
	if err != nil {
		t.Fatal(err)
	}
	if pk, err := minisign.PublicKeyFromFile(key + ".pub"); err != nil || !pk.Equal(pub) {
		t.Fatalf("the .pub file: %v, same key: %v", err, pk.Equal(pub))
	}
	if !minisign.Verify(pub, []byte("m"), minisign.Sign(priv, []byte("m"))) {
		t.Error("a signature made with the key does not verify with its public key")
	}
	if _, err := minisign.PrivateKeyFromFile("wrong", key); err == nil {
		t.Error("a wrong password opened the key")
	}
}

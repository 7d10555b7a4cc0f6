#!/bin/sh
# Copies the Go guest SDK into templates/sdk/go so `toolhost tool new` can
# vendor it into a project: sdk-guest/go is its own module, which go:embed
# cannot reach. .txt keeps Go from compiling the copies. The other
# languages' SDKs and templates are embedded from sdk-guest itself
# (package sdkguest). TestEmbeddedSDKsMatchSdkGuest fails when the copy
# drifts.
set -e
cd "$(dirname "$0")"
rm -rf sdk
mkdir -p sdk/go/cmd/toolhost-gen
for f in ../../../../../../sdk-guest/go/*.go ../../../../../../sdk-guest/go/go.mod; do
  case "$f" in *_test.go) continue ;; esac
  cp "$f" "sdk/go/$(basename "$f").txt"
done
cp ../../../../../../sdk-guest/go/cmd/toolhost-gen/main.go sdk/go/cmd/toolhost-gen/main.go.txt

#!/bin/sh
# Copies the guest SDKs into templates/sdk so `toolhost tool new` can
# vendor them into a project (go:embed cannot reach ../sdk-guest, and a
# nested go.mod would make it another module). .txt keeps Go from
# compiling the copies. TestEmbeddedSDKsMatchSdkGuest fails when they drift.
set -e
cd "$(dirname "$0")"
rm -rf sdk
mkdir -p sdk/go/cmd/toolhost-gen sdk/c
for f in ../../sdk-guest/go/*.go ../../sdk-guest/go/go.mod; do
  case "$f" in *_test.go) continue ;; esac
  cp "$f" "sdk/go/$(basename "$f").txt"
done
cp ../../sdk-guest/go/cmd/toolhost-gen/main.go sdk/go/cmd/toolhost-gen/main.go.txt
cp ../../sdk-guest/c/toolhost.h sdk/c/toolhost.h

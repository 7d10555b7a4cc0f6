#!/bin/sh
# Copies the guest SDKs into templates/sdk, and the templates that live
# beside them (sdk-guest/<lang>/template) into templates/<lang>, so
# `toolhost tool new` can vendor them into a project (go:embed cannot
# reach ../sdk-guest, and a nested go.mod would make it another module).
# .txt keeps Go from compiling the Go copies. The Go and C templates live
# here only. TestEmbeddedSDKsMatchSdkGuest fails when the copies drift.
set -e
cd "$(dirname "$0")"
rm -rf sdk rust assemblyscript d
mkdir -p sdk/go/cmd/toolhost-gen sdk/c sdk/rust/src sdk/assemblyscript sdk/d
for f in ../../sdk-guest/go/*.go ../../sdk-guest/go/go.mod; do
  case "$f" in *_test.go) continue ;; esac
  cp "$f" "sdk/go/$(basename "$f").txt"
done
cp ../../sdk-guest/go/cmd/toolhost-gen/main.go sdk/go/cmd/toolhost-gen/main.go.txt
cp ../../sdk-guest/c/toolhost.h sdk/c/toolhost.h
cp ../../sdk-guest/rust/Cargo.toml sdk/rust/Cargo.toml
cp ../../sdk-guest/rust/src/lib.rs ../../sdk-guest/rust/src/json.rs sdk/rust/src/
cp ../../sdk-guest/assemblyscript/index.ts ../../sdk-guest/assemblyscript/json.ts \
  ../../sdk-guest/assemblyscript/package.json sdk/assemblyscript/
cp ../../sdk-guest/d/toolhost.d ../../sdk-guest/d/imports.txt sdk/d/
for lang in rust assemblyscript d; do
  cp -R "../../sdk-guest/$lang/template" "$lang"
done

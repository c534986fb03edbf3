#!/usr/bin/env bash
# Installs the optional ONNX runtime (transformers.js + onnxruntime-node) into .cache/onnx-runtime, outside
# the registry's node_modules: the registry does not depend on it (an operator who sets EMBEDDING_MODEL_DIR
# installs it next to the registry, docs/relevance.md), but the tests run a real ONNX model through it
# (test/integration/onnx-embedding-model.test.ts). ~470 MB; its install scripts are not run (they would
# fetch CUDA binaries from a host this machine cannot reach; the CPU binaries are in the package).
# Idempotent: does nothing when the pinned version is there.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="4.3.2"
DIR=".cache/onnx-runtime"
installed="$DIR/node_modules/@huggingface/transformers/package.json"
if [ -f "$installed" ] && grep -q "\"version\": \"$VERSION\"" "$installed"; then
  echo "install-onnx-runtime: @huggingface/transformers $VERSION already in $DIR"
  exit 0
fi
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"name": "ard-registry-onnx-runtime", "private": true}' > "$DIR/package.json"
ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$DIR" --ignore-scripts --no-audit --no-fund --no-save \
  "@huggingface/transformers@$VERSION" >/dev/null
echo "install-onnx-runtime: @huggingface/transformers $VERSION installed in $DIR"

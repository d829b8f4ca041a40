#!/usr/bin/env bash
# run_node_test.sh NODE TRIT MAKE_CHAT_MODEL VOCAB TEMPLATE: writes the chat
# test model to a temporary directory and runs the Node OpenAI-client test.
set -euo pipefail
node="$1" trit="$2" make_model="$3" vocab="$4" template="$5"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$make_model" "$tmp/chat-test.gguf" "$vocab" "$template"
"$node" "$(dirname "$0")/../node/server_openai_test.mjs" --trit "$trit" --model "$tmp/chat-test.gguf"

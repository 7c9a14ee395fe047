#!/usr/bin/env bash
# Regenerates the seed corpora in tests/fuzz/corpus/ (committed; the fuzz
# runs work on copies). The capture seed is the committed
# corpus/fuzz_capfile/real.abicap unless CAPTURE=FILE names another, e.g.
#   flock /tmp/abicap-bpf.lock build/abicap record -o /tmp/c.abicap -d 0.3
#   CAPTURE=/tmp/c.abicap tests/fuzz/mkseeds.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=tests/fuzz/corpus
capture=${CAPTURE:-$corpus/fuzz_capfile/real.abicap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$capture" "$tmp/capture.abicap"
make --no-print-directory build/fuzz/seeds
mkdir -p $corpus/{fuzz_contract,fuzz_btf,fuzz_capfile,fuzz_perfetto}
FUZZ_SEED_DIR=$corpus FUZZ_CAPTURE=$tmp/capture.abicap build/fuzz/seeds --jobs 1

c=$corpus/fuzz_contract
cp bpf/contract.json $c/contract.json
jq -c . bpf/contract.json > $c/compact.json
jq '{abicap_contract, name, events: .events[:1]}' bpf/contract.json > $c/one-event.json
jq '{abicap_contract, name, fields}' bpf/contract.json > $c/fields-only.json
jq '.abicap_contract = 2' bpf/contract.json > $c/version2.json
jq '.events[0].args[0].type = "struct task_struct **"' bpf/contract.json > $c/bad-type.json
jq '.fields[0].field = "a.b.c.d.e"' bpf/contract.json > $c/deep-path.json
head -c 2000 bpf/contract.json > $c/cut.json

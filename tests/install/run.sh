#!/usr/bin/env bash
# The installation tests (make install-test, part of make test): each
# tests/install/*.sh but the slow ones, which have their own targets
# that .ci/run calls (docs.sh: make docs-test; package.sh: make
# package-test; image.sh: make image-test).
cd "$(dirname "$0")"
rc=0
for t in layers.sh man.sh completion.sh install.sh deploy.sh unit.sh harness.sh; do
	bash "$t" || rc=1
done
exit $rc

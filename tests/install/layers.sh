#!/usr/bin/env bash
# scripts/layers.sh on the tree (no upward include, every path that
# ARCHITECTURE.md names exists), and on copies of the tree with one
# violation planted each, which it must refuse by file and line.
source "$(dirname "$0")/lib.sh"
echo "layering and ARCHITECTURE.md"
if out=$(scripts/layers.sh 2>&1); then
	ok "the tree follows the layers and ARCHITECTURE.md names only what exists"
else
	fail "scripts/layers.sh on the tree: $out"
fi

w=$(mktemp -d /tmp/abicap-layers.XXXXXX)
trap 'rm -rf "$w"' EXIT
# plant NAME FILE LINE EXPECT: FILE (relative to a fresh copy) gets LINE
# appended; layers.sh must fail naming EXPECT
plant() {
	rm -rf "$w/t"; mkdir -p "$w/t"
	cp -r user bpf ARCHITECTURE.md "$w/t/"
	printf '%s\n' "$3" >> "$w/t/$2"
	if out=$(scripts/layers.sh "$w/t" 2>&1); then
		fail "$1: not refused"
	elif grep -qF -- "$4" <<<"$out"; then
		ok "$1 refused"
	else
		fail "$1: refused without naming $4: $out"
	fi
}
# NAME | FILE | LINE appended | what the refusal must name
while IFS='|' read -r name file line expect; do
	plant "$name" "$file" "$line" "$expect"
done <<'EOF2'
lib including cmd|user/lib/util.c|#include "cmd/commands.h"|user/lib/util.c:
event including capfile|user/event/format.h|#include "capfile/capfile.h"|user/event/format.h:
capfile including live|user/capfile/capfile.c|#include "live/capture.h"|capfile includes "live/capture.h"
live including capfile|user/live/runloop.c|#include "capfile/capsink.h"|live includes "capfile/capsink.h"
capfile including the analysis|user/capfile/capinfo.c|#include "analysis/analysis.h"|capfile includes "analysis/analysis.h"
capfile including report|user/capfile/capwarn.c|#include "report/report_read.h"|capfile includes "report/report_read.h"
report including view|user/report/slowest.c|#include "view/capview.h"|report includes "view/capview.h"
abi including capfile|user/abi/objcheck.c|#include "capfile/capfile.h"|abi includes "capfile/capfile.h"
abi including live|user/abi/checker.c|#  include "live/features.h"|abi includes "live/features.h"
a user header by its bare name|user/live/capture.c|#include "util.h"|user/live/capture.c:
lib including capfile in angle brackets|user/lib/util.c|#include <capfile/capfile.h>|lib includes "capfile/capfile.h"
view climbing into live by a path|user/view/capview.c|#include "view/../live/capture.h"|view includes "view/../live/capture.h" (live
view climbing into live beside it|user/view/capview.c|#include "../live/capture.h"|view includes "../live/capture.h" (live
ARCHITECTURE.md naming a missing file|ARCHITECTURE.md|The widget lives in `user/capfile/widget.c`.|`user/capfile/widget.c` does not exist
ARCHITECTURE.md naming a missing folder pattern|ARCHITECTURE.md|Each in `user/gadgets/<name>.c`.|`user/gadgets/<name>.c` does not exist
EOF2
done_

#!/usr/bin/env bash
# The Debian package (make package-test; slow, not part of make test): built
# with make deb (dpkg-buildpackage in a copy of the tree, which keeps its
# build outputs and debian/ as they were), lintian clean (each
# override in debian/abicap.lintian-overrides explained), installed with
# apt-get, run from /usr/bin (check, a short trace, its man page and
# completion), then purged leaving none of its files. Root.
source "$(dirname "$0")/lib.sh"
need dpkg-buildpackage lintian apt-get man dh
echo "Debian package"
start=$(date +%s)
w=$(mktemp -d /tmp/abicap-pkg.XXXXXX)
trap 'rm -rf "$w"' EXIT
# as the README says: make deb, in this tree; it builds in a copy, so the
# tree's build outputs stay (no make clean) and debian/ is left as it was
before=$(git status --porcelain --ignored -- debian 2>/dev/null)
for f in build/pingpong build/abicap-static; do [ -e "$f" ] || fail "$f missing before the build"; done
if ! make --no-print-directory deb >"$w/build.log" 2>&1; then
	fail "make deb: $(tail -5 "$w/build.log")"
	done_
fi
for f in build/pingpong build/abicap-static; do
	[ -e "$f" ] && ok "$f still there after make deb" || fail "make deb removed $f"
done
after=$(git status --porcelain --ignored -- debian 2>/dev/null)
[ "$after" = "$before" ] && ok "make deb left nothing in debian/" || fail "make deb left in debian/: $after"
deb=$TOP/$(ls -t build/abicap_*_amd64.deb | head -1)
ok "dpkg-buildpackage built $(basename "$deb") in $(($(date +%s) - start)) s"
out=$(lintian --pedantic -I --fail-on error,warning,info,pedantic "$deb" 2>&1); rc=$?
out=$(grep -v "running with root privileges" <<<"$out")
[ $rc -eq 0 ] && [ -z "$out" ] && ok "lintian --pedantic: no tag left" || fail "lintian (rc $rc): $out"

dpkg -s abicap >/dev/null 2>&1 && apt-get purge -y -qq abicap >/dev/null 2>&1
out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" 2>&1) &&
	ok "apt-get install ./$(basename "$deb")" || { fail "apt-get install: $out"; done_; }
files=$(dpkg -L abicap | while read -r f; do [ -f "$f" ] && echo "$f"; done)

[ "$(command -v abicap)" = /usr/bin/abicap ] && ok "abicap is /usr/bin/abicap" ||
	fail "abicap on PATH: $(command -v abicap)"
out=$(/usr/bin/abicap check 2>&1); rc=$?
[ $rc -eq 0 ] && ok "abicap check on this kernel: $(tail -1 <<<"$out")" || fail "abicap check: rc $rc: $(tail -3 <<<"$out")"
out=$(/usr/bin/abicap check --contract /usr/share/abicap/contract.json 2>&1) &&
	ok "abicap check --contract /usr/share/abicap/contract.json" || fail "check of the installed contract: $out"
n=$(timeout 60 /usr/bin/abicap trace -d 1 -e sched_switch 2>"$w/trace.err" | grep -c sched_switch); rc=${PIPESTATUS[0]}
[ $rc -eq 0 ] && [ "$n" -gt 0 ] && ok "abicap trace -d 1: $n sched_switch lines" ||
	fail "abicap trace -d 1: rc $rc, $n lines: $(tail -3 "$w/trace.err")"
out=$(MANWIDTH=80 man abicap-record 2>&1 | head -1)
[[ $out == "ABICAP-RECORD(1)"* ]] && ok "man abicap-record" || fail "man abicap-record: $out"
got=$(bash -c 'source /usr/share/bash-completion/completions/abicap
	COMP_WORDS=(abicap record --for); COMP_CWORD=2; _abicap; echo "${COMPREPLY[*]}"')
[ "$got" = --force ] && ok "the installed completion: abicap record --for<TAB>" || fail "completion: '$got'"
[ -f /lib/systemd/system/abicap.service ] && grep -q "^ExecStart=/usr/bin/abicap serve" /lib/systemd/system/abicap.service &&
	ok "the systemd unit runs /usr/bin/abicap serve" || fail "the unit: $(grep ExecStart /lib/systemd/system/abicap.service)"

out=$(apt-get purge -y -qq abicap 2>&1) && ok "apt-get purge abicap" || fail "apt-get purge: $out"
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done)
[ -z "$left" ] && ok "no file of the package is left" || fail "left after purge: $left"
! dpkg -s abicap >/dev/null 2>&1 && ok "dpkg knows no abicap" || fail "abicap still registered"
echo "  package test: $(($(date +%s) - start)) s"
done_

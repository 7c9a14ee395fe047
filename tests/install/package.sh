#!/usr/bin/env bash
# The Debian package (make package-test; slow, not part of make test): built
# with dpkg-buildpackage from a clean copy of the tree, lintian clean (each
# override in debian/abicap.lintian-overrides explained), installed with
# apt-get, run from /usr/sbin (check, a short trace, its man page and
# completion), then purged leaving none of its files. Root.
source "$(dirname "$0")/lib.sh"
need dpkg-buildpackage lintian apt-get man dh
echo "Debian package"
start=$(date +%s)
w=$(mktemp -d /tmp/abicap-pkg.XXXXXX)
trap 'rm -rf "$w"' EXIT
mkdir "$w/src"
# the tree as it is, without build/ or anything ignored: a clean tree
git ls-files -co --exclude-standard -z | tar --null -cf - -T - | tar -xf - -C "$w/src"
if ! (cd "$w/src" && dpkg-buildpackage -us -uc -b) >"$w/build.log" 2>&1; then
	fail "dpkg-buildpackage: $(tail -5 "$w/build.log")"
	done_
fi
deb=$(ls "$w"/abicap_*_amd64.deb)
ok "dpkg-buildpackage built $(basename "$deb") in $(($(date +%s) - start)) s"
out=$(lintian --pedantic -I --fail-on error,warning,info,pedantic "$deb" 2>&1); rc=$?
out=$(grep -v "running with root privileges" <<<"$out")
[ $rc -eq 0 ] && [ -z "$out" ] && ok "lintian --pedantic: no tag left" || fail "lintian (rc $rc): $out"

dpkg -s abicap >/dev/null 2>&1 && apt-get purge -y -qq abicap >/dev/null 2>&1
out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" 2>&1) &&
	ok "apt-get install ./$(basename "$deb")" || { fail "apt-get install: $out"; done_; }
files=$(dpkg -L abicap | while read -r f; do [ -f "$f" ] && echo "$f"; done)

[ "$(command -v abicap)" = /usr/sbin/abicap ] && ok "abicap is /usr/sbin/abicap" ||
	fail "abicap on PATH: $(command -v abicap)"
out=$(/usr/sbin/abicap check 2>&1); rc=$?
[ $rc -eq 0 ] && ok "abicap check on this kernel: $(tail -1 <<<"$out")" || fail "abicap check: rc $rc: $(tail -3 <<<"$out")"
out=$(/usr/sbin/abicap check --contract /usr/share/abicap/contract.json 2>&1) &&
	ok "abicap check --contract /usr/share/abicap/contract.json" || fail "check of the installed contract: $out"
n=$(timeout 60 /usr/sbin/abicap trace -d 1 -e sched_switch 2>"$w/trace.err" | grep -c sched_switch); rc=${PIPESTATUS[0]}
[ $rc -eq 0 ] && [ "$n" -gt 0 ] && ok "abicap trace -d 1: $n sched_switch lines" ||
	fail "abicap trace -d 1: rc $rc, $n lines: $(tail -3 "$w/trace.err")"
out=$(MANWIDTH=80 man abicap-record 2>&1 | head -1)
[[ $out == "ABICAP-RECORD(8)"* ]] && ok "man abicap-record" || fail "man abicap-record: $out"
got=$(bash -c 'source /usr/share/bash-completion/completions/abicap
	COMP_WORDS=(abicap record --for); COMP_CWORD=2; _abicap; echo "${COMPREPLY[*]}"')
[ "$got" = --force ] && ok "the installed completion: abicap record --for<TAB>" || fail "completion: '$got'"
[ -f /lib/systemd/system/abicap.service ] && grep -q "^ExecStart=/usr/sbin/abicap serve" /lib/systemd/system/abicap.service &&
	ok "the systemd unit runs /usr/sbin/abicap serve" || fail "the unit: $(grep ExecStart /lib/systemd/system/abicap.service)"

out=$(apt-get purge -y -qq abicap 2>&1) && ok "apt-get purge abicap" || fail "apt-get purge: $out"
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done)
[ -z "$left" ] && ok "no file of the package is left" || fail "left after purge: $left"
! dpkg -s abicap >/dev/null 2>&1 && ok "dpkg knows no abicap" || fail "abicap still registered"
echo "  package test: $(($(date +%s) - start)) s"
done_

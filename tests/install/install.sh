#!/usr/bin/env bash
# make install puts the binary, the man pages, completion, the systemd unit,
# the contract, the dashboard and rules and the README where a Debian
# administrator looks (bpftool's layout), runnable from there; make
# uninstall removes exactly that and nothing else: the directories install
# created go too (once empty), never one that was there before.
source "$(dirname "$0")/lib.sh"
need man install
echo "install"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/usr/local/share/man/man1" "$d/usr/local/share/zsh/site-functions"
touch "$d/usr/local/share/man/man1/someone-else.1"

make -s --no-print-directory install DESTDIR="$d" PREFIX=/usr/local >"$d.log" 2>&1 ||
	{ fail "make install: $(tail -3 "$d.log")"; done_; }
want="usr/local/lib/systemd/system/abicap.service
usr/local/bin/abicap
usr/local/share/abicap/contract.json
usr/local/share/abicap/installed-dirs
usr/local/share/abicap/grafana-dashboard.json
usr/local/share/abicap/prometheus-rules.yml
usr/local/share/bash-completion/completions/abicap
usr/local/share/doc/abicap/README.md
$(for f in docs/*.md; do echo "usr/local/share/doc/abicap/$f"; done)
$(for p in abicap $(commands | sed 's/^/abicap-/'); do echo "usr/local/share/man/man1/$p.1"; done)
usr/local/share/man/man1/someone-else.1
usr/local/share/zsh/site-functions/_abicap"
got=$(cd "$d" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
[ "$got" = "$(LC_ALL=C sort <<<"$want")" ] && ok "the files installed" ||
	fail "installed files differ: $(diff <(LC_ALL=C sort <<<"$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"

v=$("$d/usr/local/bin/abicap" --version 2>&1)
[[ $v == "abicap "* ]] && ok "the installed binary runs: $v" || fail "installed abicap --version: $v"
# the capture format record writes (capfile.h), as the README says it
f=$(sed -nE 's/^#define CAPFILE_VERSION ([0-9]+).*/\1/p' user/capfile/capfile.h)
[[ $v == *"capture file format $f"* ]] && ok "--version names capture file format $f" ||
	fail "--version does not name the capture file format record writes ($f): $v"
[ "$(stat -c %a "$d/usr/local/bin/abicap")" = 755 ] && ok "binary mode 755" || fail "binary mode"
for p in abicap abicap-record abicap-check; do
	out=$(MANWIDTH=80 man -M "$d/usr/local/share/man" "$p" 2>&1 | head -1)
	[[ $out == "${p^^}(1)"* ]] && ok "man -M ... $p finds the page" || fail "man $p: $out"
done
grep -qx "ExecStart=/usr/local/bin/abicap serve --listen 127.0.0.1:9464" \
	"$d/usr/local/lib/systemd/system/abicap.service" &&
	ok "the unit runs the installed binary" || fail "the unit's ExecStart: $(grep ExecStart "$d/usr/local/lib/systemd/system/abicap.service")"
cmp -s "$d/usr/local/share/abicap/contract.json" <("$BIN" contract show) &&
	ok "the installed contract is the built-in one" || fail "contract.json differs from abicap contract show"
got=$(PATH="$d/usr/local/bin:$PATH" bash -c 'source "$0"; COMP_WORDS=(abicap rec); COMP_CWORD=1; _abicap; echo "${COMPREPLY[*]}"' \
	"$d/usr/local/share/bash-completion/completions/abicap")
[ "$got" = record ] && ok "the installed bash completion completes" || fail "installed completion: '$got'"

make -s --no-print-directory uninstall DESTDIR="$d" PREFIX=/usr/local >"$d.log" 2>&1 ||
	fail "make uninstall: $(tail -3 "$d.log")"
got=$(cd "$d" && find . -type f | sed 's|^\./||')
[ "$got" = usr/local/share/man/man1/someone-else.1 ] &&
	ok "make uninstall removes what install put, and only that" ||
	fail "after uninstall: $(echo $got)"
got=$(cd "$d" && find . -mindepth 1 -type d | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ')
want="usr usr/local usr/local/share usr/local/share/man usr/local/share/man/man1 usr/local/share/zsh usr/local/share/zsh/site-functions "
[ "$got" = "$want" ] &&
	ok "make uninstall removes the directories install created, not those there before (an empty one included)" ||
	fail "directories after uninstall: $got (want $want)"

# into a fresh DESTDIR: nothing at all is left, twice over (a second
# install over the first still knows which directories it created)
f=$(mktemp -d)
for i in 1 2; do
	make -s --no-print-directory install DESTDIR="$f" PREFIX=/usr/local >"$d.log" 2>&1 ||
		fail "make install: $(tail -3 "$d.log")"
done
make -s --no-print-directory uninstall DESTDIR="$f" PREFIX=/usr/local >"$d.log" 2>&1 ||
	fail "make uninstall: $(tail -3 "$d.log")"
got=$(cd "$f" && find . -mindepth 1 | tr '\n' ' ')
[ -z "$got" ] && ok "install and uninstall into a fresh DESTDIR leave it empty" ||
	fail "left in a fresh DESTDIR: $got"
rm -rf "$f"
rm -f "$d.log"
done_

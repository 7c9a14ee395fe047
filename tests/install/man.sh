#!/usr/bin/env bash
# Man pages: one per command abicap --help lists, each rendering without a
# groff warning, each documenting exactly the options its parser accepts.
source "$(dirname "$0")/lib.sh"
need man groff setpriv
echo "man pages"

cmds=$(commands | tr '\n' ' ')
mk=$(make -s --no-print-directory -f Makefile -p 2>/dev/null | sed -n 's/^COMMANDS := //p' | head -1)
[ "$cmds" = "$mk " ] && ok "Makefile COMMANDS = abicap --help's commands" ||
	fail "Makefile COMMANDS '$mk' is not abicap --help's '$cmds'"

for page in abicap $(printf 'abicap-%s ' $cmds); do
	f=build/man/$page.1
	[ -s "$f" ] || { fail "$f missing (make man)"; continue; }
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=all -l "$f" 2>&1 >/dev/null)
	[ -z "$warn" ] && ok "$page(1) renders without warnings" ||
		fail "$page(1): $warn"
done

# probe the parser: CMD OPTION --help. An unknown OPTION is refused first;
# an accepted one without a value lets --help print the help; one with a
# value takes "--help" as its value and is then refused or fails on it (an
# option the command refuses after parsing names its value, --help, as
# unknown). As nobody in /, so that nothing can be written or started.
# Reads "CMD OPTION" lines, prints those accepted.
probe_all() {
	cd / && setpriv --reuid=65534 --regid=65534 --clear-groups bash -c '
	while read -r -a w; do
		opt=${w[-1]}
		out=$(timeout 20 "$0" "${w[@]}" --help 2>&1 </dev/null >/dev/null)
		[[ $out == *"unknown option '\''$opt"* ||
		   $out == *"option '\''$opt'\'' is not one of"* ||
		   $out == *"unknown option '\''--help'\''"* ]] || echo "${w[*]}"
	done' "$BIN"
}
# every long option name and short letter any option table has
# (user/cmd/: { "name", 'x' or OPT_LONG(...), ARG, HELP })
tables=$(grep -rhoE "\{ *\"[a-z0-9-]+\", *('.'|OPT_[A-Z_]+)" user/cmd)
longs=$(sed -E 's/\{ *"([^"]+)".*/--\1/' <<<"$tables" | sort -u)
# every letter and digit as a short option: one a parser took outside its
# table would show
shorts=$(printf -- '-%s\n' {a..z} {A..Z} {0..9})
accepted=$(for c in $cmds; do
	for o in $longs $shorts; do
		if [ "$c" = contract ]; then
			printf 'contract snapshot %s\ncontract from-object %s\n' "$o" "$o"
		else
			printf '%s %s\n' "$c" "$o"
		fi
	done
done | probe_all)
for c in $cmds; do
	doc=$("$BIN" $c --help | documented | sort -u)
	acc=$(awk -v c="$c" '$1 == c { print $NF }' <<<"$accepted" | sort -u)
	man=$(MANWIDTH=200 man -l build/man/abicap-$c.1 2>/dev/null)
	missing=$(comm -23 <(echo "$acc") <(echo "$doc") | grep . | tr '\n' ' ')
	extra=$(comm -13 <(echo "$acc") <(echo "$doc") | grep . | tr '\n' ' ')
	[ -z "$missing" ] && ok "$c: every option the parser accepts is documented" ||
		fail "$c: accepted but not in --help: $missing"
	[ -z "$extra" ] && ok "$c: every documented option is accepted" ||
		fail "$c: in --help but not accepted: $extra"
	notman=$(for o in $doc; do grep -qE -- "(^|[ ,])$o([ ,=]|$)" <<<"$man" || echo "$o"; done | tr '\n' ' ')
	[ -z "$notman" ] && ok "abicap-$c(1) documents every option" ||
		fail "abicap-$c(1) lacks $notman"
	# EXAMPLES (man/examples/$c.txt): there, and every option an example
	# gives abicap is one this command documents
	grep -q '^EXAMPLES' <<<"$man" && ok "abicap-$c(1) has EXAMPLES" ||
		fail "abicap-$c(1) has no EXAMPLES section"
	bad=$(grep -oE "abicap $c( [^|>]*)" "man/examples/$c.txt" | sed "s/ -- .*//" | grep -oE -- ' --?[A-Za-z][a-z-]*' |
		sed 's/^ //' | sort -u | while read -r o; do grep -qxF -- "$o" <<<"$doc" || echo "$o"; done | tr '\n' ' ')
	[ -z "$bad" ] && ok "abicap-$c(1): its examples give only options it has" ||
		fail "abicap-$c(1): examples give $bad, which abicap $c does not document"
done
done_

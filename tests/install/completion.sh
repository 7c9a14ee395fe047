#!/usr/bin/env bash
# Shell completion: the bash function driven as bash drives it (COMP_WORDS,
# COMP_CWORD, COMPREPLY), and the zsh function with zsh's completion
# builtins replaced by recorders, for commands, options, event names,
# --format values and files.
source "$(dirname "$0")/lib.sh"
need bash zsh
echo "completion"
export PATH=$(dirname "$BIN"):$PATH
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
touch "$work/cap.abicap" "$work/other.txt"

# bash: WORDS... -> COMPREPLY, sorted, one line
bcomp() {
	bash -c 'source completion/abicap.bash
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_abicap; [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$@"
}
zcomp() {
	zsh -f -c '
		compadd() { while [[ $1 == -* && $1 != -- ]]; do
			[[ $1 == -[PSJXVx] ]] && shift; shift; done
			[[ $1 == -- ]] && shift
			local m; for m; do [[ $m == ${words[CURRENT]}* ]] && print -r -- $m; done; }
		_files() { print -l -- ${words[CURRENT]}*(N); }
		_command_names() { print -- "<commands>"; }
		compset() { :; }
		words=("$@"); CURRENT=$#
		source completion/_abicap' _ "$@" | sort | tr '\n' ' '
}
expect() { # NAME GOT WANT
	[ "$2" = "$3" ] && ok "$1" || fail "$1: got '$2', want '$3'"
}
cmds=$(commands | sort | tr '\n' ' ')
events=$("$BIN" trace --help | grep -oE '\b(sched|cpu)_[a-z_]+' | sort -u | tr '\n' ' ')
for sh in bcomp zcomp; do
	expect "$sh: commands" "$($sh abicap '')" "$cmds"
	expect "$sh: a command's prefix" "$($sh abicap rep)" "report "
	for c in $(commands); do
		want=$("$BIN" "$c" --help | documented | sort | tr '\n' ' ')
		[ "$c" = contract ] && set -- abicap contract snapshot - || set -- abicap "$c" -
		expect "$sh: $c's options" "$($sh "$@")" "$want"
	done
	expect "$sh: --format of check" "$($sh abicap check --format '')" "json junit text "
	expect "$sh: -f of trace" "$($sh abicap trace -f '')" "json text "
	expect "$sh: --events" "$($sh abicap record --events '')" "$events"
	expect "$sh: contract's subcommands" "$($sh abicap contract '')" "from-object show snapshot "
	expect "$sh: a file" "$($sh abicap report "$work/ca")" "$work/cap.abicap "
	expect "$sh: --contract takes a file" "$($sh abicap check --contract "$work/oth")" "$work/other.txt "
done
expect "bash: the second event of a list" "$(bcomp abicap trace -e sched_switch,cpu_f)" \
	"sched_switch,cpu_frequency "
for sh in bcomp zcomp; do
	expect "$sh: trace -b takes a number, not a file" "$($sh abicap trace -b "$work/")" ""
	expect "$sh: check -b takes a file" "$($sh abicap check -b "$work/oth")" "$work/other.txt "
done
expect "bash: --attach" "$(bcomp abicap serve --attach '')" "auto raw_tp tp_btf "
expect "bash: a command to record" "$(bcomp abicap record -o x -- abica)" \
	"abicap abicap-static "
# every --format value completed is one the command accepts
for c in trace report check diff; do
	for f in $(bcomp abicap "$c" --format ''); do
		out=$("$BIN" "$c" --format "$f" --help 2>&1 >/dev/null)
		[ -z "$out" ] && ok "$c accepts --format $f" || fail "$c --format $f: $out"
	done
done
done_

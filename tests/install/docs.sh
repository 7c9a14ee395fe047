#!/usr/bin/env bash
# The README's examples are run and their output compared with the README's
# by shape, so the README cannot drift. An example is an indented block
# whose commands start with "$ " (a trailing \ continues one); the lines
# after a command, up to the next "$ ", are its output as the README shows
# it, "..." standing for lines left out. Each output line shown must match
# a line the command prints once numbers, kernel releases, and histogram
# bars are set aside (JSON lines: the same keys), and every command must
# exit 0, or N where it ends with "# exit N". A command ending with
# "# where: COND" shows output only where the shell test COND holds (e.g.
# a machine with cpuidle states); elsewhere only its exit is checked. Blocks run from a scratch directory with build/ and tests/
# linked and build/ on PATH, as a user would run them: as a normal user
# (abicap-docs, made once, no login) who owns the directory, "sudo" the
# real sudo (a rule for that user alone for the test's run), so that a
# command without sudo runs without privilege and files written under sudo
# are as a user finds them.
source "$(dirname "$0")/lib.sh"
need jq awk sudo runuser useradd
echo "README examples"
# the README a guide (issue 34: at most 700 lines), every link of it and
# of docs/ resolving
n=$(wc -l <README.md)
[ "$n" -le 700 ] && ok "README.md: $n lines" || fail "README.md: $n lines, over 700: move details to docs/"
broken=$(python3 scripts/doclinks.py) && ok "every link of README.md and docs/ resolves" ||
	fail "broken links: $(head -5 <<<"$broken" | tr '\n' ' ')"
user=abicap-docs
id -u "$user" >/dev/null 2>&1 ||
	useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user" ||
	{ fail "cannot make the test user $user"; done_; }
w=$(mktemp -d /tmp/abicap-docs.XXXXXX)
chmod 0711 "$w" # the user reaches its blocks' directories, lists nothing
rule=/etc/sudoers.d/abicap-docs-test-$$
cleanup() { rm -f "$rule"; [ -n "${KEEP:-}" ] || rm -rf "$w"; }
trap cleanup EXIT
printf '%s ALL=(root) NOPASSWD: ALL\n' "$user" > "$rule.new" && chmod 0440 "$rule.new" &&
	visudo -cq -f "$rule.new" && mv "$rule.new" "$rule" || { fail "cannot write the sudo rule $rule"; done_; }

# README -> $w/ex.N/cmd.M (a command) and $w/ex.N/out.M (its output shown)
awk -v dir="$w" '
function close_block() { inblk = 0 }
/^    \$ / {
	if (!inblk) { n++; m = 0; inblk = 1; system("mkdir -p " dir "/ex." n) }
	m++; cmd = dir "/ex." n "/cmd." m; out = dir "/ex." n "/out." m
	printf "" > out
	line = substr($0, 7); cont = (line ~ /\\$/)
	printf "%s\n", line > cmd
	printf "%d\n", NR > (dir "/ex." n "/line." m)
	next
}
inblk && cont { printf "%s\n", substr($0, 5) > cmd; cont = ($0 ~ /\\$/); next }
inblk && /^    / { print substr($0, 5) > out; next }
inblk && /^$/ { blank++; next }
inblk { close_block() }
' README.md

shape() {
	sed -E 's/^[[:space:]]+//; s/[[:space:]]+$//' > "$w/shape.in"
	grep '^{' "$w/shape.in" | jq -c -S '[paths | map(tostring) | join(".")]' 2>/dev/null
	grep -v '^{' "$w/shape.in" |
	sed -E 's/\|[* ]+\|/|BAR|/g; s/="[^"]*"/="S"/g
		s/(^|[[:space:]])[0-9]+\.[0-9]+\.[0-9]+[^[:space:]]*/\1KREL/g
		s/0x[0-9a-f]+/#/g; s/[0-9]+(\.[0-9]+)?/#/g
		s/[[:space:]]+/ /g'
}

for ex in $(ls -d "$w"/ex.* | sort -t. -k2 -n); do
	# run the block's commands in one shell, each output apart
	{
		# sudo resets PATH to its secure_path: give it the user's
		echo 'sudo() { command sudo -n env "PATH=$PATH" "$@"; }'
		echo "export PATH=$TOP/build:/usr/local/bin:/usr/bin:/bin"
		for c in $(ls "$ex"/cmd.* | sort -t. -k3 -n); do
			i=${c##*.}
			if grep -qE '&[[:space:]]*$' "$c"; then
				cat "$c"
			else
				echo "{"; cat "$c"; echo "} > $ex/got.$i 2>&1; echo \$? > $ex/rc.$i"
			fi
		done
		# what the block left running (a workload) ends with it
		echo 'kill $(jobs -p) 2>/dev/null; wait'
	} > "$ex/run.sh"
	mkdir "$ex/cwd" && ln -s "$TOP/build" "$TOP/tests" "$ex/cwd/"
	chown -R "$user:" "$ex"
	(cd "$ex/cwd" && timeout 300 runuser -u "$user" -- env -i HOME="$ex/cwd" \
		USER="$user" LANG=C.UTF-8 bash "$ex/run.sh" </dev/null >/dev/null 2>&1)
	for c in $(ls "$ex"/cmd.* | sort -t. -k3 -n); do
		i=${c##*.}
		first=$(head -1 "$c")
		line=$(cat "$ex/line.$i")
		if [ ! -f "$ex/rc.$i" ]; then
			# a workload left running (cmd &) has none; any other ran not
			grep -qE '&[[:space:]]*$' "$c" || fail "README:$line: \$ $first: did not run"
			continue
		fi
		rc=$(cat "$ex/rc.$i")
		want=$(sed -nE 's/.*#[[:space:]]*exit ([0-9]+)[[:space:]]*$/\1/p' "$c" | tail -1)
		[ "$rc" = "${want:-0}" ] || { fail "README:$line: \$ $first: exit $rc: $(tail -2 "$ex/got.$i")"; continue; }
		cond=$(sed -nE 's/.*#[[:space:]]*where:[[:space:]]*(.*)$/\1/p' "$c" | tail -1)
		if [ -n "$cond" ] && ! bash -c "$cond" >/dev/null 2>&1; then
			skip "README:$line: \$ $first: output not compared (not '$cond' here)"
			continue
		fi
		have=$(shape <"$ex/got.$i" | sort -u)
		miss=$(grep -v '^[[:space:]]*\.\.\.[[:space:]]*$' "$ex/out.$i" | grep . | shape |
			while IFS= read -r s; do grep -qxF -- "$s" <<<"$have" || echo "$s"; done)
		[ -z "$miss" ] && ok "README:$line: \$ $first" ||
			fail "README:$line: \$ $first: output lacks lines shaped: $(head -3 <<<"$miss")"
	done
done
done_

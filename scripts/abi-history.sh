#!/usr/bin/env bash
# The ABI history of the events abicap captures and of the kernel fields its
# programs read, generated from the kernel matrix (scripts/kernels.sh):
# per architecture, the kernels of one flavour sorted by version, and each
# consecutive pair compared with `abicap diff` (tracepoint arguments and
# tracefs records, under the append-only rule) and with `abicap check` (what
# each struct field the contract names resolves to). Every other flavour is
# compared with the generic one of its line and architecture.
#
#   scripts/abi-history.sh [--manifest FILE] [--json FILE] [--update-readme]
#
# Writes the JSON (default docs/abi-history.json) and prints the table; with
# --update-readme the table replaces the one between the abi-history markers
# in README.md. Exit 0, 1 if abicap failed on a kernel, 2 bad usage.
set -uo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
MANIFEST=${ABICAP_KERNEL_CACHE:-$HOME/.cache/abicap/kernels}/manifest.tsv
JSON=docs/abi-history.json
UPDATE_README=0
ABICAP=${ABICAP:-build/abicap}
while [ $# -gt 0 ]; do
	case $1 in
	--manifest) MANIFEST=$2; shift ;;
	--json) JSON=$2; shift ;;
	--update-readme) UPDATE_README=1 ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "abi-history.sh: error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$ABICAP" ] || { echo "abi-history.sh: error: $ABICAP missing: run make" >&2; exit 2; }
[ -r "$MANIFEST" ] || { echo "abi-history.sh: error: no manifest $MANIFEST: run scripts/kernels.sh" >&2; exit 2; }
command -v jq >/dev/null || { echo "abi-history.sh: error: jq missing: run scripts/setup.sh" >&2; exit 2; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The input abicap reads for a kernel: the image itself, or the raw BTF
# the fetch script extracted where abicap cannot read the image.
input_of() {
	local dir=$1 rc=2
	if [ -s "$dir/vmlinuz" ]; then
		"$ABICAP" check --btf "$dir/vmlinuz" >/dev/null 2>&1
		rc=$?
	fi
	if [ $rc -le 1 ]; then
		echo "$dir/vmlinuz"
	elif [ -s "$dir/vmlinux.btf" ]; then
		echo "$dir/vmlinux.btf"
	fi
}

# kernels with BTF: arch flavour line version release input
: > "$WORK/kernels"
while IFS=$'\t' read -r id line flavour pkg ver release dir status arch; do
	[ "$status" = ok ] || continue
	arch=${arch:-amd64}
	in=$(input_of "$dir")
	[ -n "$in" ] || continue
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" "$flavour" "$line" "$ver" "$release" "$in" >> "$WORK/kernels"
done < "$MANIFEST"
[ -s "$WORK/kernels" ] || { echo "abi-history.sh: error: no kernel with BTF in $MANIFEST" >&2; exit 2; }

fail=0
# check --format json of each kernel, once
check_json() {
	local in=$1 out
	out=$WORK/check.$(printf '%s' "$in" | md5sum | cut -c1-16).json
	if [ ! -s "$out" ]; then
		"$ABICAP" check --btf "$in" --format json > "$out" 2> "$out.err"
		case $? in 0|1) ;; *) echo "abi-history.sh: abicap check failed on $in: $(head -1 "$out.err")" >&2
			fail=1; echo '{"items":[]}' > "$out" ;; esac
	fi
	echo "$out"
}

# One comparison: the changes of diff plus the field resolutions that
# differ, as JSON lines {arch, kind, from, to, scope, item, change, ...}.
compare() {
	local arch=$1 kind=$2 from=$3 to=$4 old=$5 new=$6 cj1 cj2
	"$ABICAP" diff --format json "$old" "$new" > "$WORK/diff.json" 2> "$WORK/diff.err"
	case $? in
	0|1) ;;
	*) echo "abi-history.sh: abicap diff failed on $old -> $new: $(head -1 "$WORK/diff.err")" >&2
		fail=1; return ;;
	esac
	jq -c --arg arch "$arch" --arg kind "$kind" --arg from "$from" --arg to "$to" \
		'.changes[] | {arch: $arch, kind: $kind, from: $from, to: $to,
		  scope, item, change, breaking, old: .old_type, new: .new_type}' \
		"$WORK/diff.json" >> "$WORK/changes.jsonl"
	cj1=$(check_json "$old")
	cj2=$(check_json "$new")
	jq -c -n --arg arch "$arch" --arg kind "$kind" --arg from "$from" --arg to "$to" \
		--slurpfile a "$cj1" --slurpfile b "$cj2" '
		# a typedef name in parentheses is no change of layout
		def canon: sub(" \\([^)]*\\)$"; "");
		($a[0].items | map(select(.kind == "field")) | map({(.scope + "." + .item): .}) | add // {}) as $o |
		$b[0].items[] | select(.kind == "field") | (.scope + "." + .item) as $k |
		select($o[$k] != null and $o[$k].actual != .actual) |
		{arch: $arch, kind: $kind, from: $from, to: $to, scope, item: ("field " + $k),
		 change: ("resolves to " + .actual + " (was " + $o[$k].actual + ")"),
		 breaking: ((.actual | canon) != ($o[$k].actual | canon)),
		 old: $o[$k].actual, new: .actual, verdict: .verdict}' >> "$WORK/changes.jsonl"
	jq -c -n --arg arch "$arch" --arg kind "$kind" --arg from "$from" --arg to "$to" \
		'{arch: $arch, kind: $kind, from: $from, to: $to}' >> "$WORK/compared.jsonl"
}

: > "$WORK/changes.jsonl"
: > "$WORK/compared.jsonl"
for arch in $(cut -f1 "$WORK/kernels" | sort -u); do
	# the generic flavour: the one on most lines of this architecture
	base=$(awk -F'\t' -v a="$arch" '$1 == a { print $2 }' "$WORK/kernels" | sort | uniq -c |
		sort -k1,1nr -k2,2 | awk 'NR == 1 { print $2 }')
	prev= prevline=
	while IFS=$'\t' read -r _ _ line ver _ in; do
		[ -n "$prev" ] && compare "$arch" history "$prevline" "$line" "$prev" "$in"
		prev=$in prevline=$line
	done < <(awk -F'\t' -v a="$arch" -v f="$base" '$1 == a && $2 == f' "$WORK/kernels" | sort -t$'\t' -k4,4V)
	# other flavours against the generic kernel of their line
	while IFS=$'\t' read -r _ flavour line _ _ in; do
		gen=$(awk -F'\t' -v a="$arch" -v f="$base" -v l="$line" '$1 == a && $2 == f && $3 == l { print $6 }' "$WORK/kernels" | head -1)
		[ -n "$gen" ] && compare "$arch" "flavour $flavour" "$line $base" "$line $flavour" "$gen" "$in"
	done < <(awk -F'\t' -v a="$arch" -v f="$base" '$1 == a && $2 != f' "$WORK/kernels" | sort -t$'\t' -k3,3V -k2,2)
done

# one row per change, with every place it was seen
mkdir -p "$(dirname "$JSON")"
jq -s --slurpfile k <(jq -R -s 'split("\n") | map(select(length > 0) | split("\t") |
		{arch: .[0], flavour: .[1], line: .[2], version: .[3], release: .[4]})' "$WORK/kernels") \
	--slurpfile c <(jq -s . "$WORK/compared.jsonl") '
	{generated_by: "scripts/abi-history.sh", comparisons: $c[0], kernels: $k[0],
	 changes: (group_by([.kind == "history", .scope, .item, .change, .breaking]) |
		map({scope: .[0].scope, item: .[0].item, change: .[0].change,
		     breaking: .[0].breaking, kind: (if .[0].kind == "history" then "version" else "flavour" end),
		     seen: map({arch, from, to})}) |
		sort_by(.kind, (.seen[0].to | split(" ")[0] | split(".") | map(tonumber? // 0)), .scope, .item))}' \
	"$WORK/changes.jsonl" > "$JSON.new" && mv "$JSON.new" "$JSON"

{
	echo "| between | event or struct | item | change | append-only rule | architectures |"
	echo "|---|---|---|---|---|---|"
	jq -r '.changes[] |
		([.seen[] | "\(.from) → \(.to)"] | unique | join(", ")) as $when |
		([.seen[].arch] | unique | join(", ")) as $arches |
		"| \($when) | \(.scope) | \(.item) | \(.change) | \(if .breaking then "**breaking**" else "compatible" end) | \($arches) |"' "$JSON"
	echo
	jq -r '([.changes[] | select(.kind == "flavour") | .seen[] | "\(.arch) \(.to)"] | unique) as $differ |
		[.comparisons[] | select(.kind != "history")] as $fl |
		"\(.comparisons | length) comparisons over \(.kernels | length) kernels (\([.kernels[].arch] | unique | join(", "))): " +
		"\([.comparisons[] | select(.kind == "history")] | length) between consecutive versions of one flavour, " +
		"\($fl | length) of another flavour with the generic kernel of its line " +
		"(\([$fl[] | select(("\(.arch) \(.to)") as $x | $differ | index($x) | not)] | length) of them identical to it). " +
		"Generated by scripts/abi-history.sh into docs/abi-history.json."' "$JSON"
} > "$WORK/table.md"
cat "$WORK/table.md"

if [ $UPDATE_README -eq 1 ]; then
	{
		echo "<!-- abi-history:begin (scripts/abi-history.sh --update-readme, $(date -u +%Y-%m-%d)) -->"
		cat "$WORK/table.md"
		echo "<!-- abi-history:end -->"
	} > "$WORK/section"
	if ! grep -q '<!-- abi-history:begin' README.md; then
		echo "abi-history.sh: error: README.md has no abi-history markers" >&2
		exit 2
	fi
	awk -v sec="$WORK/section" '
		/<!-- abi-history:begin/ { while ((getline l < sec) > 0) print l; skip = 1; next }
		/<!-- abi-history:end -->/ { skip = 0; next }
		!skip' README.md > README.md.new && mv README.md.new README.md
	echo "abi-history.sh: README.md updated" >&2
fi
exit $fail

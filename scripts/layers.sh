#!/usr/bin/env bash
# The architecture checks (ARCHITECTURE.md), run by every make (a
# violation fails the build) and usable alone: scripts/layers.sh [TOP].
#  1. No upward include: each user/<layer>/ file includes only headers of
#     the layers below it (lib <- event <- {abi, capfile, analysis};
#     {analysis, capfile} <- report <- view;
#     live -> abi;
#     cmd -> anything; live and capfile never include each other), and an
#     include without a layer names a header of bpf/ or the generated
#     skeleton, never a user/ header by its bare name. Both "..." and <...>
#     includes count, each where the compiler finds it (beside the file for
#     quotes, else under user/), with . and .. resolved.
#  2. The architecture text matches the tree: every path ARCHITECTURE.md
#     names in backquotes exists (a path with <...> is a pattern: its
#     folder must exist; one with * must match a file).
# Prints one line per violation, naming the file and the fix; exits 1 if
# there is any.
set -uo pipefail
TOP=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP" || { echo "layers.sh: cannot enter $TOP" >&2; exit 2; }
bad=0

# the layers a layer may include (itself among them)
declare -A may=(
	[lib]="lib"
	[event]="lib event bpf"
	[abi]="lib event abi bpf"
	[analysis]="lib event analysis bpf"
	[capfile]="lib event capfile bpf"
	[report]="lib event analysis capfile report bpf"
	[live]="lib event abi live bpf skel"
	[view]="lib event analysis capfile report view bpf"
	[cmd]="lib event abi analysis capfile report live view cmd bpf skel"
	[static]=""
)
for dir in user/*/; do
	layer=$(basename "$dir")
	if [ -z "${may[$layer]+x}" ]; then
		echo "layers: $dir is not a known layer: add it to scripts/layers.sh and ARCHITECTURE.md"
		bad=1
		continue
	fi
	while IFS=: read -r file line text; do
		# the name between the quotes or the angle brackets
		inc=${text#*include}
		inc=${inc#"${inc%%[\"<]*}"}
		quoted=0
		[ "${inc:0:1}" = '"' ] && quoted=1
		inc=${inc:1}
		inc=${inc%%[\">]*}
		# where the compiler finds it: beside the file (quotes only),
		# else under user/ (-Iuser); .. and . resolved, so that
		# "view/../live/x.h" is live's
		target=
		for base in $([ $quoted = 1 ] && echo "$(dirname "$file")") user; do
			if [ -e "$base/$inc" ]; then
				rel=$(realpath -m --relative-to=user "$base/$inc")
				case $rel in
				../*) ;;
				*/*) target=${rel%%/*} ;;
				esac
				break
			fi
		done
		if [ -z "$target" ]; then
			case $inc in
			*.skel.h) target=skel ;;
			*)
				if [ $quoted = 0 ]; then
					continue # a system or library header
				elif [ -e "bpf/$inc" ]; then
					target=bpf
				else
					echo "layers: $file:$line: #include \"$inc\" names no bpf/ header: include a user/ header as \"<layer>/$inc\""
					bad=1
					continue
				fi
				;;
			esac
		fi
		case " ${may[$layer]} " in
		*" $target "*) ;;
		*)
			echo "layers: $file:$line: $layer includes \"$inc\" ($target is not below $layer): move the code down a layer or call it from user/cmd/"
			bad=1
			;;
		esac
	done < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$dir"*.[chS] 2>/dev/null)
done

if [ ! -f ARCHITECTURE.md ]; then
	echo "layers: ARCHITECTURE.md is missing"
	bad=1
else
	while IFS=: read -r line path; do
		case $path in
		*'<'*)
			[ -d "$(dirname "${path%%<*}x")" ] && continue ;;
		*'*'*)
			compgen -G "$path" >/dev/null && continue ;;
		*)
			[ -e "$path" ] && continue ;;
		esac
		echo "layers: ARCHITECTURE.md:$line: \`$path\` does not exist: correct the text or the tree"
		bad=1
	done < <(grep -no '`[^` ]*`' ARCHITECTURE.md | tr -d '`' |
		grep -E ':(user|bpf|tests|scripts|vmlinux|docs|debian|completion|\.ci)/|:[A-Za-z0-9_.-]+\.(md|sh|c|h)$|:Makefile$')
fi
exit $bad

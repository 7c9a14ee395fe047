#!/usr/bin/env python3
# doclinks.py: every relative link of README.md and docs/*.md names a file
# that exists and, with #anchor, a heading of that file (GitHub's anchors:
# lower case, punctuation but '-' and '_' dropped, spaces as '-'). Prints
# each broken link as FILE: LINK and exits 1 if there is one.
import glob
import os
import re
import sys


def slug(heading):
    h = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return h.replace(' ', '-')


def headings(path):
    found, fenced = set(), False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('```'):
                fenced = not fenced
            m = re.match(r'^(#+) (.*)', line)
            if m and not fenced:
                found.add(slug(m.group(2)))
    return found


def main():
    os.chdir(os.path.join(os.path.dirname(sys.argv[0]), '..'))
    files = ['README.md'] + sorted(glob.glob('docs/*.md'))
    anchors = {f: headings(f) for f in files}
    bad = 0
    for f in files:
        with open(f, encoding='utf-8') as fh:
            text = fh.read()
        for m in re.finditer(r'\]\(([^)\s]+)\)', text):
            link = m.group(1)
            if re.match(r'^[a-z]+:', link):
                continue
            path, _, anchor = link.partition('#')
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(target):
                print(f'{f}: {link}: no such file')
                bad += 1
            elif anchor and target.endswith('.md') and anchor not in anchors.get(target, headings(target)):
                print(f'{f}: {link}: no such heading')
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

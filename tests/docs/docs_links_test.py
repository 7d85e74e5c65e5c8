#!/usr/bin/env python3
"""docs_links_test.py: the front page stays short, links every file of docs/, and no relative link
in README.md or docs/*.md is dead (a missing file, or an #anchor naming no heading of its file).
docs/architecture.md names the host's code as `library/file` (host_stub/library/file.h or .cpp) or
by path: each name it gives must exist.

Usage: docs_links_test.py SOURCE_DIR. Prints each problem as one sentence and exits 1 on any."""
import pathlib
import re
import sys
import urllib.parse

MAX_README_LINES = 250

# [text](target) and [text](target "title"); images too. Reference-style links are not used here.
INLINE_LINK = re.compile(r'!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')


def without_code(text):
    """The text with fenced code blocks and inline code spans blanked, so links shown as code
    are not taken for links."""
    lines, fence = [], None
    for line in text.split('\n'):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith('```') or stripped.startswith('~~~')):
            fence = stripped[:3]
            lines.append('')
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
            lines.append('')
            continue
        lines.append(re.sub(r'(`+)(?:(?!\1).)+?\1', '', line))
    return '\n'.join(lines)


def github_slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped (letters, digits,
    spaces, hyphens and underscores kept), each space a hyphen."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # a link keeps its text
    text = re.sub(r'<[^>]+>', '', text)                          # inline HTML
    text = text.replace('`', '').replace('*', '')
    text = text.lower()
    text = ''.join(ch for ch in text if ch.isalnum() or ch in ' -_')
    return text.replace(' ', '-')


def anchors_of(path):
    """Every anchor a file's headings give, numbered as GitHub numbers repeats (-1, -2, ...)."""
    anchors, seen = set(), {}
    for line in without_code(path.read_text(encoding='utf-8')).split('\n'):
        match = HEADING.match(line)
        if not match:
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f'{slug}-{count}')
    return anchors


def links_of(path):
    return INLINE_LINK.findall(without_code(path.read_text(encoding='utf-8')))


def is_relative(target):
    return not (re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target) or target.startswith('//'))


# `storage/replica_mover`, `cli/reassign.cpp`, `tests/bench/hot_swap_bench.cpp`: a code span that
# is a relative path of lower-case words.
CODE_NAME = re.compile(r'`([a-z_]+/[a-z_./-]*[a-z_])`')


def missing_code_names(root, doc):
    """The code names of `doc` that name no file or folder of the repository or of host_stub/."""
    missing = []
    for name in sorted(set(CODE_NAME.findall(doc.read_text(encoding='utf-8')))):
        candidates = [root / name, root / 'host_stub' / name]
        candidates += [root / 'host_stub' / (name + ext) for ext in ('.h', '.cpp')]
        if not any(c.exists() for c in candidates):
            missing.append(name)
    return missing


def check(root):
    problems = []
    readme = root / 'README.md'
    docs = root / 'docs'
    if not readme.is_file():
        return [f'{readme} does not exist.']

    lines = len(readme.read_text(encoding='utf-8').splitlines())
    if lines > MAX_README_LINES:
        problems.append(f'README.md has {lines} lines, more than the limit of {MAX_README_LINES}.')

    linked = set()
    for source in [readme] + sorted(docs.glob('*.md')):
        name = source.relative_to(root).as_posix()
        for target in links_of(source):
            if not is_relative(target):
                continue
            path_part, _, anchor = target.partition('#')
            path_part = urllib.parse.unquote(path_part)
            dest = (source.parent / path_part).resolve() if path_part else source.resolve()
            if not dest.exists():
                problems.append(f'{name} links to {target}, but {path_part} does not exist.')
                continue
            if source == readme:
                linked.add(dest)
            if anchor:
                if dest.suffix != '.md' or dest.is_dir():
                    problems.append(f'{name} links to {target}, but only Markdown files have '
                                    f'heading anchors.')
                elif urllib.parse.unquote(anchor).lower() not in anchors_of(dest):
                    problems.append(f'{name} links to {target}, but {dest.name} has no heading '
                                    f'whose anchor is #{anchor}.')

    architecture = docs / 'architecture.md'
    if architecture.is_file():
        for name in missing_code_names(root, architecture):
            problems.append(f'docs/architecture.md names `{name}`, which is no file of the '
                            f'repository or of host_stub/.')

    for doc in sorted(docs.iterdir()) if docs.is_dir() else []:
        if doc.is_file() and doc.resolve() not in linked:
            problems.append(f'README.md does not link to docs/{doc.name}.')
    return problems


def main():
    if len(sys.argv) != 2:
        print('usage: docs_links_test.py SOURCE_DIR', file=sys.stderr)
        return 2
    problems = check(pathlib.Path(sys.argv[1]).resolve())
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print('docs links: README.md is short enough, links every file of docs/, no link is dead, and '
          'docs/architecture.md names only code that exists.')
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""check-layering.py: the host's libraries depend one way.

Each folder of host_stub/ is one library with a floor in LAYERS below; kafka/ holds two, protocol/
and server/. A file may include headers
of its own library and of libraries on lower floors only; an include that climbs (to a higher
floor) or crosses (to another library on the same floor) fails the check, as does a folder that is
not on any floor. No folder may hold more than MAX_SHARE of host_stub's lines either, so that no
library grows back into the catch-all it was split from.

Usage: tools/check-layering.py [repository root]; exits 1 naming each include at fault.
"""
import pathlib
import re
import sys

# Floors, from the bottom up. A library sees only the floors below its own.
LAYERS = [
    ["util"],  # errors, sizes, clocks, logging: needs nothing of the host
    ["model"],  # the vocabulary and Kafka's byte formats
    ["io"],  # the OS boundary and a log dir's on-disk names
    # the stream server; the config; the strategy host; Kafka's codecs and client
    ["net", "config", "strategy", "kafka/protocol"],
    ["placement"],  # a placement's outcome and its explanation
    ["storage"],  # the LogManager, its logs, recovery and the replica mover
    ["balance"],  # the balancer and its planner
    ["broker"],  # storage, strategy slot and balancer tied together
    ["metrics", "admin", "kafka/server", "sim", "conformance"],  # the broker's faces
    ["cluster"],  # the cluster balancer, a client of kafka's codecs
    ["cli"],  # lds-host
]
MAX_SHARE = 0.20
INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:kafka/)?[a-z_]+)/[^"]+"', re.M)
SPLIT = ("kafka",)  # folders whose subfolders are the libraries


def library_of(parts):
    """The library a file belongs to, from its path below host_stub/."""
    return f"{parts[0]}/{parts[1]}" if parts[0] in SPLIT and len(parts) > 2 else parts[0]


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve() / "host_stub"
    floor = {lib: i for i, libs in enumerate(LAYERS) for lib in libs}
    sources = sorted(p for p in root.rglob("*") if p.suffix in (".h", ".cpp"))
    faults = []
    lines = {}
    for path in sources:
        lib = library_of(path.relative_to(root).parts)
        text = path.read_text(encoding="utf-8")
        lines[lib] = lines.get(lib, 0) + text.count("\n")
        if lib not in floor:
            faults.append(f"{path.relative_to(root.parent)}: host_stub/{lib}/ is on no floor of "
                          "tools/check-layering.py's LAYERS.")
            continue
        for number, line in enumerate(text.splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) == lib:
                continue
            target = m.group(1)
            if target not in floor:
                if (root / target).is_dir():
                    faults.append(f"{path.relative_to(root.parent)}:{number}: includes "
                                  f"{target}/, which is on no floor.")
                continue  # a header of the ABI or another project folder, not a host library
            if floor[target] >= floor[lib]:
                how = "crosses to" if floor[target] == floor[lib] else "climbs to"
                faults.append(f"{path.relative_to(root.parent)}:{number}: {lib}/ {how} "
                              f"{target}/ ({line.strip()}); a library includes only the floors "
                              "below its own.")
    total = sum(lines.values())
    for lib, count in sorted(lines.items()):
        if total and count > MAX_SHARE * total:
            faults.append(f"host_stub/{lib}/ holds {count} of host_stub's {total} lines "
                          f"({100 * count / total:.1f}%), more than {100 * MAX_SHARE:.0f}%.")
    for fault in faults:
        print(fault, file=sys.stderr)
    print(f"layering: {len(sources)} files in {len(lines)} libraries, "
          f"{len(faults)} fault{'s' if len(faults) != 1 else ''}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())

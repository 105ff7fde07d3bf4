"""Shared by the checkers under test/: workloads mark the lines a check expects with comments
(`# HOT_CALL_LINE`, `# INDEX_LINE`, ...), so a check never hard-codes a line number."""


def marker_line(source, marker):
    with open(source) as f:
        for number, text in enumerate(f, 1):
            if marker in text:
                return number
    raise SystemExit(f"marker {marker} not in {source}")

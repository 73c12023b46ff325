"""Ask a running `duel serve` for the odds of two sheets and print them.

    duel serve &                       # in another terminal, or on the GM's machine
    python docs/examples/odds.py falkenstein fencing=GD fencing=GD

Only the standard library: a virtual tabletop's macro does the same with its fetch().
"""

import json
import os
import sys
import urllib.error
import urllib.request

SERVER = os.environ.get("DUEL_SERVER", "http://127.0.0.1:8000")


def ask(route: str, request: dict) -> dict:
    """POST ``request`` to ``route``; the document, or the server's one-line error."""
    data = json.dumps(request).encode()
    call = urllib.request.Request(SERVER + route, data=data,
                                  headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(call) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        said = json.load(error)
        sys.exit(f"{said['field'] or 'request'}: {said['error']}")


def main() -> None:
    system, sheet_a, sheet_b = sys.argv[1:4] if len(sys.argv) > 3 else (
        "falkenstein", "fencing=GD", "fencing=GD")
    duel = ask("/api/solve", {"system": system, "a": sheet_a, "b": sheet_b})
    print(f"{system}: A ({sheet_a}) against B ({sheet_b})")
    print(f"A wins {duel['win']:.1%}, draw {duel['draw']:.1%}, B wins {duel['loss']:.1%}; "
          f"about {duel['expected_length']:.1f} {duel['length_unit']}s")
    for ending, chance in sorted(duel["endings"].items(), key=lambda item: -item[1]):
        print(f"  {chance:6.1%}  {ending}")


if __name__ == "__main__":
    main()

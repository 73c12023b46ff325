"""The pages, rendered on the server from each system's schema (``duel systems``'s
document): forms with the allowed values as choices and each field's help. Nothing
here knows a system's words; the answers are drawn in the page by ``static/app.js``
from the JSON routes' documents, through the same presentation the CLI prints.
"""

from __future__ import annotations

import json
from html import escape

import envs

from ..cli import systems as systems_command
from .requests import SWEEP_MAX_CELLS

#: the pages, their titles and what each is for, in the order of the menu
PAGES = {
    "duel": ("Duel", "The exact odds of a duel and the least predictable safe play."),
    "opponent": ("Opponent", "Your best play against a given opponent, and your odds."),
    "play": ("Play", "Play a duel against an opponent, one click per decision."),
    "npc": ("NPC", "Make an NPC duellist: the equilibrium or a personality, as a profile."),
    "sweep": ("Sweep", "A designer's balance report: a grid of duels solved, and what each "
                       "field is worth."),
    "dice": ("Dice", "The exact odds of a dice roll."),
    "ruleset": ("Ruleset", "Your own rules: a TOML file overriding the defaults."),
}
#: the pages asking about a duel, with the parts of the form each adds to the game's
GAME_PAGES = {"duel", "opponent", "play", "npc"}


def render(name: str, query: dict) -> str | None:
    if name not in PAGES:
        return None
    if name == "dice":
        return _layout(name, "", _dice_form())
    documents = {d["name"]: d for d in systems_command.document()
                 if d["status"] == "implemented"}
    system = query.get("system") if query.get("system") in documents else next(iter(documents))
    if name == "ruleset":
        return _layout(name, system, _ruleset_form(documents, system))
    if name == "sweep":
        return _layout(name, system, _sweep_form(documents, system))
    return _layout(name, system, _game_form(name, documents, system))


def error_page(status: int, message: str) -> str:
    return _layout(None, "", f'<p class="error-page">{escape(message)} ({status})</p>')


def _layout(name: str | None, system: str, body: str) -> str:
    title, lead = PAGES.get(name, ("Not found", ""))
    menu = "".join(
        f'<a href="/{page}{"?system=" + system if system and page != "dice" else ""}"'
        f'{" aria-current=page" if page == name else ""}>{escape(label)}</a>'
        for page, (label, _) in PAGES.items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} · duel</title>
<link rel="stylesheet" href="/static/style.css"></head>
<body data-page="{escape(name or '')}" data-system="{escape(system)}">
<header><nav><span class="brand">duel</span>{menu}</nav>
<div id="rules" class="rules">Rules: the defaults</div></header>
<main><h1>{escape(title)}</h1><p class="lead">{escape(lead)}</p>
{body}
<section id="progress" class="progress" hidden>
<div class="bar"><div class="fill"></div></div><span class="said"></span>
<button type="button" id="cancel">Cancel</button></section>
<p id="problem" class="problem" role="alert" hidden></p>
<section id="answer" aria-live="polite"></section></main>
<script src="/static/app.js"></script></body></html>"""


# --- the duel's form, from the schema


def _game_form(name: str, documents: dict, system: str) -> str:
    document = documents[system]
    examples = document.get("examples") or {}
    spec = envs.spec(system)
    quick = examples.get("quick") or {}
    options = "".join(_field(f"options.{o['name']}", o, quick.get(o["name"]))
                      for o in document["options"])
    sides = "".join(_sheet(document, spec, side, examples.get(f"sheet_{side}", ""))
                    for side in ("a", "b"))
    return f"""<form id="ask" class="ask" novalidate>
<div class="row">{_system_picker(documents, system)}{_page_fields(name, system)}</div>
<p class="hint">Filled with {escape(document['title'])}'s example duel (a short one):
change any field; an empty field keeps what it shows in grey (the reference sheet's
value, else the default).</p>
<div class="sheets">{sides}</div>
<details class="options"><summary>Options of the duel</summary>
<div class="grid">{options}</div></details>
<div class="go"><button type="submit">{escape(_verb(name))}</button></div></form>"""


def _verb(name: str) -> str:
    return {"duel": "Solve the duel", "opponent": "Find my best play",
            "play": "Start the duel", "npc": "Make the NPC"}[name]


def _system_picker(documents: dict, system: str) -> str:
    choices = "".join(f'<option value="{escape(n)}"{" selected" * (n == system)}>'
                      f'{escape(d["title"])}</option>' for n, d in documents.items())
    return (f'<label class="field">System<select name="system" id="system">{choices}'
            '</select></label>')


def _sheet(document: dict, spec, side: str, example: str) -> str:
    given = spec.sheet.parse(example) if example else {}
    sheets = shown_values(document)["references"]
    chosen = sheets.get(given.get("sheet"), {})
    reference = ""
    if sheets:
        # each sheet's own values, for the page to show what an empty field keeps
        choices = "".join(
            f'<option data-fields="{escape(json.dumps(fields))}"'
            f'{" selected" * (key == given.get("sheet"))}>{escape(key)}</option>'
            for key, fields in sheets.items())
        reference = (f'<label class="field">Reference sheet<select name="{side}.sheet">'
                     f'<option value="">none</option>{choices}</select>'
                     '<small>its fields, then the ones below over them</small>'
                     f'<span class="error" data-for="{side}.sheet"></span></label>')
    fields = "".join(_field(f"{side}.{f['name']}", f, given.get(f["name"]),
                            chosen.get(f["name"]), given.get("sheet"))
                     for f in document["sheet"])
    return (f'<fieldset class="sheet" data-side="{side}"><legend>Duellist {side.upper()}'
            f'</legend><span class="error" data-for="{side}"></span>{reference}'
            f'<div class="grid">{fields}</div></fieldset>')


def shown_values(document: dict) -> dict:
    """What an empty field of the form keeps, as the form shows it: each option's and
    sheet field's default, and each reference sheet's own fields (``document``:
    ``duel systems``'s, or ``fields_under`` a ruleset's)."""
    def texts(entries) -> dict:
        return {name: _plain(value) for name, value in entries if value is not None}
    return {"options": texts((o["name"], o["default"]) for o in document["options"]),
            "sheet": texts((f["name"], f["default"]) for f in document["sheet"]),
            "references": {key: texts(fields.items())
                           for key, fields in document["reference_sheet_fields"].items()}}


def _field(name: str, entry: dict, value=None, kept=None, sheet: str | None = None) -> str:
    """One field; ``kept`` is what it holds when left empty (the reference ``sheet``'s
    value, else the default), shown as its placeholder."""
    label = entry["name"].replace("_", " ")
    default = entry.get("default")
    kept = default if kept is None else kept
    shown_default = "" if default is None else _plain(default)
    shown_kept = "" if kept is None else _plain(kept)
    help_text = f"{entry['help']}; {entry['accepts']}" if entry.get("help") else entry["accepts"]
    kind = entry["type"]
    attributes = (f'name="{escape(name)}" data-kind="{kind}" title="{escape(help_text)}" '
                  f'data-default="{escape(shown_default)}"')
    if kind == "flag":
        checked = _plain(value if value is not None else kept) == "true"
        control = (f'<input type="checkbox" {attributes}{" checked" * checked}>')
        return (f'<label class="field flag">{control} {escape(label)}'
                f'<small>{escape(entry.get("help") or "")}</small>'
                f'<span class="error" data-for="{escape(name)}"></span></label>')
    if kind in ("choice", "bool"):
        choices = entry["choices"] if kind == "choice" else ["true", "false"]
        picked = "" if value is None else _plain(value)
        items = "".join(f'<option{" selected" * (c == picked)}>{escape(str(c))}</option>'
                        for c in choices)
        control = (f'<select {attributes}><option value="">'
                   f'{escape(_kept_text(shown_kept, sheet))}</option>{items}</select>')
    else:
        typed = "number" if kind in ("int", "float") else "text"
        step = ' step="any"' if kind == "float" else ""
        shown = "" if value is None else escape(_plain(value))
        control = (f'<input type="{typed}"{step} {attributes} value="{shown}" '
                   f'placeholder="{escape(shown_kept)}">')
    return (f'<label class="field">{escape(label)}{control}'
            f'<small title="{escape(help_text)}">{escape(help_text)}</small>'
            f'<span class="error" data-for="{escape(name)}"></span></label>')


def _kept_text(shown: str, sheet: str | None) -> str:
    """The empty choice's words (``app.js`` writes the same when a sheet is picked)."""
    return f"{sheet or 'default'} ({shown})" if shown else sheet or "default"


def _plain(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ",".join(f"{k}:{v}" for k, v in value.items())
    return str(value)


def _page_fields(name: str, system: str) -> str:
    """What a page asks beyond the duel: the side played, the opponent, a seed."""
    side = ('<label class="field">You play<select name="side"><option value="a">A'
            '</option><option value="b">B</option></select></label>')
    if name == "duel":
        return side.replace("You play", "Seen from")
    temperaments = _temperaments(system)
    if name == "npc":
        items = "".join(f'<option value="{escape(t)}">{escape(t)}: {escape(d)}</option>'
                        for t, d in temperaments.items())
        return (side + '<label class="field">Personality<select name="personality">'
                '<option value="">none: the equilibrium</option>' + items + '</select>'
                '<span class="error" data-for="personality"></span></label>'
                + _strength("strength") +
                '<label class="field">Seed<input type="number" name="seed" value="0" min="0">'
                '<span class="error" data-for="seed"></span></label>')
    extra = ('<label class="field">Seed<input type="number" name="seed" value="1" min="0">'
             '<span class="error" data-for="seed"></span></label>') if name == "play" else ""
    return side + _opponent(temperaments) + extra


def _temperaments(system: str) -> dict:
    from ..temperaments import personality_names
    try:
        return personality_names(system)
    except Exception:  # noqa: BLE001 - a system without personality data offers none
        return {}


def _strength(name: str) -> str:
    return (f'<label class="field">Strength <output data-of="{name}">0.5</output>'
            f'<input type="range" name="{name}" min="0" max="1" step="0.05" value="0.5">'
            '<small>0 is the equilibrium, 1 the temperament itself</small>'
            f'<span class="error" data-for="{name}"></span></label>')


def _opponent(temperaments: dict) -> str:
    items = "".join(f'<option value="{escape(t)}">{escape(t)}: {escape(d)}</option>'
                    for t, d in temperaments.items())
    return f"""<fieldset class="opponent"><legend>Opponent</legend>
<label><input type="radio" name="vs_kind" value="equilibrium" checked> the equilibrium</label>
<label><input type="radio" name="vs_kind" value="personality"> a personality</label>
<label><input type="radio" name="vs_kind" value="profile"> a profile file</label>
<label><input type="radio" name="vs_kind" value="mix"> a fixed mix</label>
<div class="vs-part" data-vs="personality" hidden>
<label class="field">Personality<select name="vs_personality">{items}</select></label>
{_strength("vs_strength")}</div>
<div class="vs-part" data-vs="profile" hidden>
<label class="field">Profile (the JSON file of duel train or of the NPC page)
<input type="file" name="vs_profile" accept=".json,.gz,application/json"></label></div>
<div class="vs-part" data-vs="mix" hidden>
<label class="field">Mix<input type="text" name="vs_mix" placeholder="ACTION:WEIGHT,...">
<small>the opponent's weights over its actions, the same at every moment</small></label></div>
<span class="error" data-for="vs"></span></fieldset>"""


# --- the sweep's form: grids over a base duel, or a results file read back


def _sweep_form(documents: dict, system: str) -> str:
    document = documents[system]
    spec = envs.spec(system)
    examples = document.get("examples") or {}
    quick = examples.get("quick") or {}
    options = "".join(_field(f"options.{o['name']}", o, quick.get(o["name"]))
                      for o in document["options"])
    grid = "\n".join(_example_grid(spec))
    sheets = "".join(
        f'<label class="field">Duellist {side.upper()}: base sheet'
        f'<input type="text" name="{side}" value="{escape(examples.get(f"sheet_{side}", ""))}"'
        f' placeholder="the default sheet"><small>the command line\'s text; the grid\'s '
        f'{side}.FIELD axes change it</small><span class="error" data-for="{side}"></span>'
        '</label>' for side in ("a", "b"))
    fields = ", ".join(f["name"] for f in document["sheet"])
    return f"""<form id="ask" class="ask sweep" novalidate>
<div class="row">{_system_picker(documents, system)}
<label class="field wide">Grid, one axis a line<textarea name="grid" rows="3"
spellcheck="false">{escape(grid)}</textarea>
<small>as duel sweep --grid: a.FIELD=V1,V2 or a.FIELD=LOW..HIGH (a sheet field of A; b. for
B), a=SHEET;SHEET (whole sheets), o.OPTION=V1,V2; the cells are every combination, at
most {SWEEP_MAX_CELLS}, with the rules of the header. Fields: {escape(fields)}</small>
<span class="error" data-for="grid"></span></label></div>
<div class="row">{sheets}</div>
<details class="options"><summary>Options of every duel of the grid</summary>
<div class="grid">{options}</div></details>
<div class="go"><button type="submit">Run the sweep</button></div></form>
<form id="read" class="ask results" novalidate><div class="row">
<label class="field">Or read a results file of duel sweep (cells.parquet)
<input type="file" name="results" accept=".parquet">
<span class="error" data-for="results"></span></label></div>
<div class="go"><button type="submit">Read its report</button></div></form>"""


def _example_grid(spec) -> list[str]:
    """The example duel's two sheets crossed: on the first field (a number or a choice)
    where they differ, else as whole sheets (a 2 x 2 grid of short duels)."""
    examples = spec.examples
    sheet_a, sheet_b = spec.sheet.parse(examples.sheet_a), spec.sheet.parse(examples.sheet_b)
    for entry in spec.sheet.fields:
        mine, theirs = sheet_a.get(entry.name), sheet_b.get(entry.name)
        if entry.kind in ("int", "choice") and None not in (mine, theirs) and mine != theirs:
            ladder = sorted({mine, theirs}, key=lambda v: entry.choices.index(v)
                            if entry.kind == "choice" and v in entry.choices else int(v))
            return [f"{side}.{entry.name}={','.join(ladder)}" for side in ("a", "b")]
    both = f"{examples.sheet_a};{examples.sheet_b}"
    return [f"a={both}", f"b={both}"]


# --- the other forms


def _dice_form() -> str:
    return """<form id="ask" class="ask dice" novalidate><div class="row">
<label class="field">Dice<input type="text" name="expression" value="2d6+3">
<small>e.g. 3d6, d20+9, 2d8-1, 3d6+1d4+2</small><span class="error" data-for="expression">
</span></label>
<label class="field">Ask<select name="mode">
<option value="full">the whole distribution</option>
<option value="at_least">the chance to reach totals</option>
<option value="vs">against another roll</option>
<option value="dc">degrees of success against DCs (d20+K)</option></select></label>
<label class="field">Totals, roll or DCs<input type="text" name="more" placeholder="10 12 or 2d6">
<small>totals or DCs apart by spaces; a dice expression against another roll</small>
<span class="error" data-for="more"></span></label></div>
<div class="go"><button type="submit">Roll the numbers</button></div></form>"""


def _ruleset_form(documents: dict, system: str) -> str:
    return f"""<form id="ask" class="ask ruleset" novalidate><div class="row">
{_system_picker(documents, system)}
<label class="field">Ruleset file (TOML)<input type="file" name="ruleset" accept=".toml">
<small>any [default] table of the system's rules; unknown keys are errors</small>
<span class="error" data-for="ruleset"></span></label></div>
<div class="go"><button type="submit">Use these rules</button>
<button type="button" id="defaults">Back to the defaults</button></div></form>"""

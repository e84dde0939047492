# sbomcheck.py — what t7010-t7012 share: validating the three SBOM exports against the
# official schemas in $SCHEMAS, and reading them into simple maps.
#   validate(schemas, spdx_path, cdx_path, spdx3_path): raises on the first invalid document
#     (any path may be None); returns False when jsonschema or a schema is missing.
#   spdx(path), cdx(path), spdx3(path): the document and its maps (see each).
import json, os, warnings

def validate(schemas, spdx_path, cdx_path, spdx3_path):
    warnings.simplefilter("ignore")
    try:
        from jsonschema import Draft7Validator, Draft202012Validator, RefResolver
    except ImportError:
        return False
    need = ["spdx-2.3.schema.json", "bom-1.6.schema.json", "spdx.schema.json",
            "jsf-0.82.schema.json", "cryptography-defs.schema.json", "spdx-3.0.1.schema.json"]
    if not schemas or not all(os.path.isfile(os.path.join(schemas, n)) for n in need):
        return False
    load = lambda n: json.load(open(os.path.join(schemas, n)))
    def check(validator, path):
        errors = list(validator.iter_errors(json.load(open(path))))
        assert not errors, (path, [e.message[:300] for e in errors[:3]])
    if spdx_path:
        check(Draft7Validator(load("spdx-2.3.schema.json")), spdx_path)
    if cdx_path:
        bom, store = load("bom-1.6.schema.json"), {}
        for n in need[2:5]:
            s = load(n)
            store[s.get("$id", n)] = s
            store[n] = s
        check(Draft7Validator(bom, resolver=RefResolver.from_schema(bom, store=store)), cdx_path)
    if spdx3_path:
        check(Draft202012Validator(load("spdx-3.0.1.schema.json")), spdx3_path)
    return True

def spdx(path):
    """(doc, files by fileName (a list: a path may have several versions), packages by
    name, relationships as (from, type, to) SPDX ids, files by SPDX id)."""
    d = json.load(open(path))
    files, by_id = {}, {}
    for f in d["files"]:
        files.setdefault(f["fileName"], []).append(f)
        by_id[f["SPDXID"]] = f
    pkgs = {p["name"]: p for p in d.get("packages", [])}
    rels = [(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"])
            for r in d["relationships"]]
    return d, files, pkgs, rels, by_id

def cdx(path):
    """(doc, file components by name (lists), library components by name)."""
    d = json.load(open(path))
    files, libs = {}, {}
    for c in d["components"]:
        if c["type"] == "file":
            files.setdefault(c["name"], []).append(c)
        else:
            libs[c["name"]] = c
    return d, files, libs

def spdx3(path):
    """(graph by spdxId, relationships as (from, type, [to])."""
    g = json.load(open(path))["@graph"]
    by_id = {e["spdxId"]: e for e in g if "spdxId" in e}
    rels = [(e["from"], e["relationshipType"], e["to"]) for e in g if e["type"] == "Relationship"]
    return by_id, rels

def license_items(expr):
    """The license ids of an expression (each "ID" or "ID WITH EXC")."""
    words = expr.replace("(", " ").replace(")", " ").split()
    out = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "WITH":
            out[-1] += " WITH " + words[i + 1]
            i += 2
            continue
        if w not in ("AND", "OR"):
            out.append(w)
        i += 1
    return set(out)

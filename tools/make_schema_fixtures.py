#!/usr/bin/env python3
"""tools/make_schema_fixtures.py - the JSON Schema oracle for tests/test_schema.c (a
developer-time tool: `make test` reads what is committed and needs no Python).

Writes tests/fixtures/schema/cases.txt: about forty schemas shaped like real ones (function-calling
parameter schemas, nested objects, arrays, enums, integer ranges, recursive $defs), each with
candidate JSON texts in compact form and the verdict of the Python jsonschema package on each:

    # comment lines: the versions that made the file
    schema NAME
    <the schema, one line>
    valid <text>          jsonschema accepts it; the grammar must accept it
    invalid <text>        jsonschema rejects it; the grammar must reject it
    strict TAG <text>     jsonschema accepts it, the grammar rejects it by design (TAG says why:
                          order - properties out of the schema's order; extra - a property that
                          additionalProperties leaves open but the grammar does not (absent
                          additionalProperties with declared properties, or items absent beside
                          prefixItems); form - not the canonical compact form, e.g. 1.0 for an
                          integer, white space, "\\/" in an enum's string: enum and const
                          values are matched in their compact form only; free strings take any
                          JSON escape, but no lone surrogate)

Candidates come from a small random instance generator per schema (valid by construction, most of
the time), mutations of those (a required key dropped, a value of the wrong type, a number out of
range, a string too long) and hand-written ones. jsonschema's verdict is what counts; the tag only
explains a valid text the grammar refuses, and is given where the candidate was made.

    python3 tools/make_schema_fixtures.py            # writes the fixtures
    python3 tools/make_schema_fixtures.py --check F  # validates F: lines "NAME<TAB>text" (the
                                                     # samples test_schema --samples F writes)
"""
import json, random, sys, os
import jsonschema
from importlib.metadata import version

OUT = "tests/fixtures/schema/cases.txt"
rng = random.Random(7)


def c(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def tool(props, required, **kw):
    s = {"type": "object", "properties": props, "required": required}
    s.update(kw)
    return s


SCHEMAS = [
    ("weather", tool({"location": {"type": "string", "description": "City and country"},
                      "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                     ["location"], additionalProperties=False)),
    ("weather_strict", {"type": "object", "properties": {"location": {"type": "string"},
                        "unit": {"type": ["string", "null"], "enum": ["c", "f", None]}},
                        "required": ["location", "unit"], "additionalProperties": False}),
    ("search", tool({"query": {"type": "string", "minLength": 1, "maxLength": 40},
                     "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                     "safe": {"type": "boolean"}}, ["query"])),
    ("send_email", tool({"to": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
                         "subject": {"type": "string"}, "body": {"type": "string"},
                         "cc": {"type": "array", "items": {"type": "string"}}},
                        ["to", "subject", "body"], additionalProperties=False)),
    ("calendar", tool({"title": {"type": "string"},
                       "start": {"type": "object", "properties": {"hour": {"type": "integer", "minimum": 0, "maximum": 23},
                                                                  "minute": {"type": "integer", "minimum": 0, "maximum": 59}},
                                 "required": ["hour", "minute"], "additionalProperties": False},
                       "attendees": {"type": "array", "items": {"type": "object", "properties": {
                           "name": {"type": "string"}, "optional": {"type": "boolean"}}, "required": ["name"]}}},
                      ["title", "start"])),
    ("all_optional", tool({"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "null"}}, [])),
    ("mixed_optional", tool({"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"},
                             "d": {"type": "integer"}}, ["b", "d"])),
    ("addl_true", tool({"id": {"type": "integer"}}, ["id"], additionalProperties=True)),
    ("addl_schema", tool({"id": {"type": "integer"}}, [], additionalProperties={"type": "string"})),
    ("free_object", {"type": "object"}),
    ("free_object_typed_values", {"type": "object", "additionalProperties": {"type": "integer"}}),
    ("any", {}),
    ("any_true", True),
    ("string_only", {"type": "string"}),
    ("string_len", {"type": "string", "minLength": 2, "maxLength": 4}),
    ("string_exact", {"type": "string", "minLength": 3, "maxLength": 3}),
    ("number", {"type": "number"}),
    ("boolean_or_null", {"type": ["boolean", "null"]}),
    ("int_small", {"type": "integer", "minimum": 0, "maximum": 9}),
    ("int_range", {"type": "integer", "minimum": 17, "maximum": 1234}),
    ("int_negative", {"type": "integer", "minimum": -250, "maximum": -3}),
    ("int_cross_zero", {"type": "integer", "minimum": -42, "maximum": 108}),
    ("int_lower", {"type": "integer", "minimum": 95}),
    ("int_upper", {"type": "integer", "maximum": -7}),
    ("int_exclusive", {"type": "integer", "exclusiveMinimum": 9, "exclusiveMaximum": 100}),
    ("int_fraction_bounds", {"type": "integer", "minimum": -2.5, "maximum": 3.5}),
    ("int_64bit", {"type": "integer", "minimum": -9223372036854775808, "maximum": 18446744073709551615}),
    ("enum_mixed", {"enum": ["red", 3, None, True, [1, "x"], {"k": "v"}, "a\"b\\c/é\n"]}),
    ("const_object", {"const": {"kind": "point", "xy": [1, -2.5]}}),
    ("enum_typed", {"type": "string", "enum": ["a", 1, "b", None]}),
    ("array_any", {"type": "array"}),
    ("array_ints", {"type": "array", "items": {"type": "integer", "minimum": -5, "maximum": 5}, "maxItems": 4}),
    ("array_min", {"type": "array", "items": {"type": "boolean"}, "minItems": 2}),
    ("tuple", {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}),
    ("tuple_min_rest", {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                        "items": {"type": "null"}, "minItems": 1, "maxItems": 4}),
    ("anyof", {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer", "minimum": 0, "maximum": 99},
                         {"type": "null"}]}),
    ("oneof_objects", {"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}},
         "required": ["kind", "r"], "additionalProperties": False},
        {"type": "object", "properties": {"kind": {"const": "rect"}, "w": {"type": "number"}, "h": {"type": "number"}},
         "required": ["kind", "w", "h"], "additionalProperties": False}]}),
    ("pydantic_optional", {"title": "Args", "type": "object", "properties": {
        "name": {"title": "Name", "type": "string"},
        "nick": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Nick"},
        "age": {"allOf": [{"$ref": "#/$defs/Age"}], "description": "years"}},
        "required": ["name", "age"], "$defs": {"Age": {"type": "integer", "minimum": 0, "maximum": 150}}}),
    ("tree", {"$defs": {"node": {"type": "object", "properties": {
        "value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 3}},
        "required": ["value", "children"], "additionalProperties": False}}, "$ref": "#/$defs/node"}),
    ("linked_list", {"definitions": {"list": {"anyOf": [{"type": "null"}, {"type": "object", "properties": {
        "head": {"type": "string"}, "tail": {"$ref": "#/definitions/list"}}, "required": ["head", "tail"],
        "additionalProperties": False}]}}, "$ref": "#/definitions/list"}),
    ("root_recursion", {"type": "object", "properties": {"name": {"type": "string"},
                        "sub": {"type": "array", "items": {"$ref": "#"}}}, "required": ["name"],
                        "additionalProperties": False}),
    ("nested_defs", {"$defs": {"outer": {"$defs": {"inner": {"enum": [1, 2]}}, "type": "array",
                               "items": {"$ref": "#/$defs/outer/$defs/inner"}}},
                     "type": "object", "properties": {"xs": {"$ref": "#/$defs/outer"}}, "required": ["xs"],
                     "additionalProperties": False}),
    ("unicode_keys", {"type": "object", "properties": {"名前": {"type": "string", "maxLength": 2},
                      "a\"b": {"type": "boolean"}, "tab\there": {"type": "null"}},
                      "required": ["名前", "a\"b", "tab\there"], "additionalProperties": False}),
    ("openai_tool_nested", tool({"order": {"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1, "maximum": 99}},
            "required": ["sku", "qty"], "additionalProperties": False}, "minItems": 1},
        "priority": {"enum": ["low", "normal", "high"]}}, "required": ["items"], "additionalProperties": False}},
        ["order"], additionalProperties=False)),
]


# ---- a random instance generator (valid most of the time) and mutations -----------------------
def resolve(root, ref):
    node = root
    for seg in ref[2:].split("/") if ref != "#" else []:
        node = node[seg.replace("~1", "/").replace("~0", "~")]
    return node


STRS = ["", "a", "ok", "héllo", "x y", "q\"t", "back\\slash", "tab\t", "日本", "emoji😀", "abcdefgh"]


def gen(s, root, depth=0):
    if s is True or s == {}:
        return gen_any(depth)
    if "$ref" in s:
        return gen(resolve(root, s["$ref"]), root, depth + 1)
    if "allOf" in s:
        return gen(s["allOf"][0], root, depth + 1)
    if "anyOf" in s or "oneOf" in s:
        return gen(rng.choice(s.get("anyOf") or s.get("oneOf")), root, depth + 1)
    if "const" in s:
        return s["const"]
    if "enum" in s:
        return rng.choice(s["enum"])
    t = s.get("type")
    if isinstance(t, list):
        t = rng.choice(t)
    if t is None:
        return gen_any(depth)
    if t == "null":
        return None
    if t == "boolean":
        return rng.random() < 0.5
    if t == "integer":
        lo = s.get("minimum", s.get("exclusiveMinimum", -10**6))
        hi = s.get("maximum", s.get("exclusiveMaximum", 10**6))
        lo, hi = int(lo) - 1, int(hi) + 1
        return rng.choice([lo, hi, rng.randint(lo, hi), int(s.get("minimum", 0) or 0)])
    if t == "number":
        return rng.choice([0, -1, 2.5, 1e3, -0.125, 7])
    if t == "string":
        lo, hi = s.get("minLength", 0), s.get("maxLength", 8)
        n = rng.randint(max(0, lo - 1), hi + 1)
        return "".join(rng.choice("abcé日\"\\\n/") for _ in range(n))
    if t == "array":
        lo, hi = s.get("minItems", 0), min(s.get("maxItems", 3), 4)
        n = rng.randint(max(0, lo - 1), hi + 1) if depth < 4 else lo
        out = []
        pre = s.get("prefixItems", [])
        for i in range(n):
            if i < len(pre):
                out.append(gen(pre[i], root, depth + 1))
            else:
                out.append(gen(s.get("items", True), root, depth + 1))
        return out
    if t == "object":
        out = {}
        req = s.get("required", [])
        for k, v in s.get("properties", {}).items():
            if k in req or (rng.random() < 0.5 and depth < 4):
                out[k] = gen(v, root, depth + 1)
        a = s.get("additionalProperties")
        if a not in (None, False) and rng.random() < 0.4:
            out["extra_" + str(rng.randint(0, 9))] = gen(a, root, depth + 1)
        return out
    raise ValueError(t)


def gen_any(depth):
    r = rng.random()
    if depth > 2 or r < 0.5:
        return rng.choice([None, True, False, 0, -3, 1.5, "s", "é"])
    if r < 0.75:
        return [gen_any(depth + 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(STRS): gen_any(depth + 1) for _ in range(rng.randint(0, 3))}


def mutate(v):
    r = rng.random()
    if isinstance(v, dict) and v:
        k = rng.choice(list(v))
        if r < 0.3:
            del v[k]
        elif r < 0.6:
            v[k] = mutate(v[k])
        else:
            v[k] = rng.choice([None, "zz", 12345678, [], {}])
        return v
    if isinstance(v, list) and v:
        i = rng.randrange(len(v))
        if r < 0.5:
            v[i] = mutate(v[i])
        else:
            v.append(v[i])
        return v
    return rng.choice([None, "zz", 12345678, -1, [], {}, True, 0.5])


HAND = {  # (text, tag): tags explain a text jsonschema accepts and the grammar refuses
    "weather": [('{"unit":"celsius","location":"Paris"}', "order"), ('{"location":"Paris"}', None),
                ('{"location":"Paris","unit":"kelvin"}', None), ('{"location":"Paris","x":1}', None),
                ('{"location":"Paris"}', None), ('{"location":"Paris","unit":"celsius"}', None),
                ('{ "location":"Paris"}', "form"), ('{"location":"Par\\u0069s"}', None),
                ('{"location":"a\\/b"}', None), ('{}', None), ('[]', None)],
    "search": [('{"query":"x","page":2}', "extra"), ('{"query":""}', None), ('{"query":"a","limit":0}', None),
               ('{"query":"a","limit":50}', None), ('{"query":"a","limit":51}', None), ('{"query":"a","limit":5.0}', "form"),
               ('{"query":"\\ud83d\\ude00"}', None), ('{"query":"\\ud83d"}', "form")],
    "addl_true": [('{"id":1,"x":[1,{"y":null}]}', None), ('{"x":1,"id":1}', "order"), ('{"id":1}', None)],
    "addl_schema": [('{"id":1,"n":"s"}', None), ('{"n":"s"}', None), ('{"n":1}', None), ('{"n":"s","id":1}', "order"),
                    ('{"a":"x","b":"y"}', None)],
    "free_object": [('{}', None), ('{"a":[],"b":{"c":-0.5e+3}}', None), ('{"a":1,"a":2}', None), ('[]', None)],
    "string_len": [('"a"', None), ('"ab"', None), ('"日本語"', None), ('"\\u00e9\\n"', None), ('"abcde"', None),
                   ('"😀😀"', None), ('"\\ud83d\\ude00"', None)],
    "number": [('0', None), ('-0', None), ('1.5e-7', None), ('1E+2', None), ('01', None), ('.5', None), ('1.', None),
               ('-', None), ('NaN', "form")],
    "int_64bit": [('-9223372036854775808', None), ('-9223372036854775809', None), ('18446744073709551615', None),
                  ('18446744073709551616', None), ('0', None), ('-0', "form"), ('00', None)],
    "int_fraction_bounds": [('-2', None), ('-3', None), ('3', None), ('4', None), ('0', None)],
    "int_cross_zero": [('-42', None), ('-43', None), ('108', None), ('109', None), ('0', None), ('-0', "form"),
                       ('099', None), ('1e2', "form")],
    "enum_mixed": [('"red"', None), ('3', None), ('3.0', "form"), ('[1,"x"]', None), ('{"k":"v"}', None),
                   ('"a\\"b\\\\c/é\\n"', None), ('"a\\"b\\\\c\\/é\\n"', "form"), ('"a\\"b\\\\c/\\u00e9\\n"', "form"),
                   ('null', None), ('true', None), ('false', None), ('"blue"', None)],
    "const_object": [('{"kind":"point","xy":[1,-2.5]}', None), ('{"xy":[1,-2.5],"kind":"point"}', "order"),
                     ('{"kind":"point","xy":[1,-2.50]}', "form"), ('{"kind":"point"}', None)],
    "enum_typed": [('"a"', None), ('"b"', None), ('1', None), ('null', None)],
    "tuple": [('[]', None), ('["a"]', None), ('["a",1]', None), ('["a",1,true]', None), ('["a",1,true,null]', "extra"),
              ('[1]', None)],
    "tuple_min_rest": [('[]', None), ('["a"]', None), ('["a",1,null,null]', None), ('["a",1,null,null,null]', None),
                       ('["a",1,2]', None)],
    "oneof_objects": [('{"kind":"circle","r":1}', None), ('{"kind":"rect","w":1,"h":2}', None),
                      ('{"kind":"rect","r":1}', None), ('{"kind":"circle","r":1,"w":2}', None)],
    "tree": [('{"value":1,"children":[]}', None), ('{"value":1,"children":[{"value":2,"children":[]}]}', None),
             ('{"value":1}', None), ('{"value":1,"children":[{"value":2}]}', None)],
    "linked_list": [('null', None), ('{"head":"a","tail":null}', None), ('{"head":"a","tail":{"head":"b","tail":null}}', None),
                    ('{"head":"a"}', None), ('{"head":"a","tail":{"head":1,"tail":null}}', None)],
    "root_recursion": [('{"name":"a"}', None), ('{"name":"a","sub":[{"name":"b","sub":[]}]}', None),
                       ('{"name":"a","sub":[{}]}', None)],
    "unicode_keys": [('{"名前":"ab","a\\"b":true,"tab\\there":null}', None), ('{"名前":"abc","a\\"b":true,"tab\\there":null}', None),
                     ('{"名前":"ab","a\\"b":true,"tab\\u0009here":null}', "form")],
    "pydantic_optional": [('{"name":"a","age":3}', None), ('{"name":"a","nick":null,"age":3}', None),
                          ('{"name":"a","nick":"n","age":151}', None), ('{"name":"a","age":-1}', None)],
    "any": [('null', None), ('[1,{"a":"b"}]', None), ('"x', None), ('{"a"}', None), ('[1,]', None)],
    "boolean_or_null": [('true', None), ('null', None), ('0', None), ('"true"', None)],
}


def cands_hand(name, text):
    return any(t == text for t, _ in HAND.get(name, []))


def canonical(text):
    return c(json.loads(text)) == text


def main():
    cls = {}
    lines = ["# made by tools/make_schema_fixtures.py with python %s, jsonschema %s (Draft 2020-12)"
             % (sys.version.split()[0], version("jsonschema"))]
    total = {"valid": 0, "invalid": 0, "strict": 0}
    for name, schema in SCHEMAS:
        v = jsonschema.Draft202012Validator(schema)
        jsonschema.Draft202012Validator.check_schema(schema)
        lines.append("schema " + name)
        lines.append(c(schema))
        seen, cands = set(), []
        for text, tag in HAND.get(name, []):
            cands.append((text, tag))
        for _ in range(14):
            inst = gen(schema, schema)
            cands.append((c(inst), None))
            if rng.random() < 0.6:
                cands.append((c(mutate(json.loads(c(inst)))), None))
        for text, tag in cands:
            if text in seen:
                continue
            seen.add(text)
            try:
                inst = json.loads(text)
                ok = v.is_valid(inst)
            except ValueError:
                ok = False
            if ok and tag is None and not canonical(text) and not cands_hand(name, text):
                raise SystemExit("%s: a generated candidate not in compact form: %s" % (name, text))
            if ok and tag is None and extra_keys(schema, schema, inst):
                tag = "extra"
            if ok and tag:
                lines.append("strict %s %s" % (tag, text))
                total["strict"] += 1
            else:
                lines.append(("valid " if ok else "invalid ") + text)
                total["valid" if ok else "invalid"] += 1
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("%s: %d schemas, %d valid, %d invalid, %d strict" % (OUT, len(SCHEMAS), total["valid"],
                                                             total["invalid"], total["strict"]))


def extra_keys(s, root, inst):
    """does inst hold a property the grammar leaves out on purpose (absent additionalProperties
    beside declared properties)? Walks the schema as gen does, for the values it generated."""
    if s is True or not isinstance(s, dict):
        return False
    if "$ref" in s:
        return extra_keys(resolve(root, s["$ref"]), root, inst)
    for k in ("allOf", "anyOf", "oneOf"):
        if k in s:
            return all(extra_keys(b, root, inst) for b in s[k] if jsonschema.Draft202012Validator(dict(b, **({"$defs": root.get("$defs", {}), "definitions": root.get("definitions", {})} if isinstance(root, dict) else {}))).is_valid(inst)) and any(True for _ in s[k])
    if isinstance(inst, dict) and "properties" in s:
        if "additionalProperties" not in s and any(k not in s["properties"] for k in inst):
            return True
        return any(extra_keys(s["properties"][k], root, x) for k, x in inst.items() if k in s["properties"])
    if isinstance(inst, list):
        pre = s.get("prefixItems", [])
        if pre and "items" not in s and len(inst) > len(pre):
            return True
        return any(extra_keys(pre[i] if i < len(pre) else s.get("items", True), root, x) for i, x in enumerate(inst))
    return False


def check(path):
    byname = dict(SCHEMAS)
    n = bad = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            name, text = line.rstrip("\n").split("\t", 1)
            n += 1
            ok = jsonschema.Draft202012Validator(byname[name]).is_valid(json.loads(text))
            if not ok:
                bad += 1
                print("NOT VALID %s: %s" % (name, text))
    print("%s: %d samples checked with jsonschema %s, %d not valid" % (path, n, version("jsonschema"), bad))
    return bad == 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(0 if check(sys.argv[2]) else 1)
    main()

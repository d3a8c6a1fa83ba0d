"""Parameter checks and Neo4j-only constructs."""

from __future__ import annotations

import pytest

from kgbuild.loaders.dialect import (
    MAX_PARAM_DEPTH,
    check_parameters,
    explain_error,
    json_nesting,
    mask_literals,
    neo4j_only_constructs,
    parse_param,
    query_parameters,
    returned_columns,
)
from kgbuild.loaders.errors import QueryError


def test_parameters_outside_strings_and_comments():
    query = ("MATCH (c {name: $name}) // not $this\n/* nor $that */ WHERE c.x = '$quoted' "
             "AND c.y = \"it\\\"s $too\" RETURN $`odd name`, $0")
    assert query_parameters(query) == {"name", "odd name", "0"}
    assert len(mask_literals(query)) == len(query)


def test_missing_and_extra_parameters_are_refused():
    check_parameters("RETURN $a", {"a": 1})
    with pytest.raises(QueryError, match=r"missing \$scene \(pass --param scene=VALUE\)"):
        check_parameters("MATCH (a)-[r]->(b) WHERE r.first_scene <= $scene RETURN a", {})
    with pytest.raises(QueryError, match="not used by the query: sceen"):
        check_parameters("RETURN 1", {"sceen": 3})


def test_param_values_are_json_when_they_parse():
    assert parse_param("scene=12") == ("scene", 12)
    assert parse_param("name=Anna") == ("name", "Anna")
    assert parse_param('name="12"') == ("name", "12")
    assert parse_param("code=007") == ("code", "007")
    assert parse_param("ids=[1, 2]") == ("ids", [1, 2])
    assert parse_param("expr=a=b") == ("expr", "a=b")
    for bad in ("noequals", "1x=2", "=3"):
        with pytest.raises(QueryError, match="NAME=VALUE"):
            parse_param(bad)


def test_nesting_is_measured_outside_json_strings():
    assert json_nesting("12") == 0
    assert json_nesting('[1, {"a": [2]}]') == 3
    assert json_nesting('"[[[[" ') == 0
    assert json_nesting(r'["\\", ["x\\"]]') == 2  # an escaped backslash: the quote after it ends the string
    assert json_nesting(r'["\"]]]]') == 1  # an escaped quote: the brackets after it are in the string
    assert json_nesting("[" * 50_000) == 50_000


def test_a_value_nested_past_the_limit_is_refused_but_a_quoted_one_is_text():
    assert parse_param("x=" + "[" * MAX_PARAM_DEPTH + "]" * MAX_PARAM_DEPTH)[1] is not None
    with pytest.raises(QueryError, match=f"nests more than {MAX_PARAM_DEPTH} levels"):
        parse_param("x=" + "[" * (MAX_PARAM_DEPTH + 1))
    assert parse_param('x="' + "[" * 50_000 + '"') == ("x", "[" * 50_000)


@pytest.mark.parametrize(("query", "feature", "advice", "silent"), [
    ("MATCH (n) SET n += $props", "SET n += map", "one SET n.key = value", False),
    ("MATCH p = shortestPath((a)-[*]-(b)) RETURN p", "shortestPath(...)", "SHORTEST 1..6", False),
    ("RETURN [x IN [1, 2] | x * 2] AS y", "a list comprehension", "list_transform", False),
    ("RETURN [x IN [1, 2] WHERE x > 1] AS y", "a list comprehension", "list_filter", False),
    ("MATCH (n) RETURN labels(n) AS l", "labels(n)", "n.type", True),
    ("MATCH (n) RETURN n.scenes[0] AS first", "list index [0]", "1-based", True),
    ("CALL apoc.help('x')", "an APOC procedure", "Neo4j plugin", False),
    ("CREATE CONSTRAINT c FOR (n:Character) REQUIRE n.key IS UNIQUE", "CREATE CONSTRAINT/INDEX",
     "nothing to create", False),
])
def test_neo4j_only_constructs_are_named_with_what_to_write(query, feature, advice, silent):
    hints = neo4j_only_constructs(query)
    assert [h.feature for h in hints] == [feature]
    assert advice in hints[0].instead and hints[0].silent is silent


def test_shared_constructs_raise_no_hint():
    query = ("MATCH (c:Character)-[r:kinship_with|hostility_with]->(o) WHERE any(s IN r.scenes WHERE s < 3) "
             "RETURN c.name AS a, type(r) AS t, 'labels(n) [0]' AS literal // shortestPath(")
    assert neo4j_only_constructs(query) == []


def test_error_points_at_the_position_and_adds_hints():
    query = "MATCH (n)\nSET n += $m"
    text = explain_error(query, "Parser exception: Invalid input <SET n +>: expected rule "
                         "oC_SingleQuery (line: 2, offset: 6)\n\"SET n += $m\"\n      ^")
    lines = text.splitlines()
    assert lines[0] == ("syntax error at line 2, column 7: Invalid input <SET n +>: "
                        "expected rule oC_SingleQuery")
    assert lines[1:3] == ["  SET n += $m", "        ^"]
    assert lines[3] == "line 2, column 1: SET n += map is Neo4j's; write one SET n.key = value per property"


def test_returned_columns_are_named_as_neo4j_names_them():
    assert returned_columns("MATCH (a)-[r]->(b) RETURN type(r), b.name AS other ORDER BY other") == [
        "type(r)", "other"]
    assert returned_columns("MATCH (n) RETURN DISTINCT n.name, count(*) LIMIT 3") == ["n.name", "count(*)"]
    assert returned_columns("RETURN 'a, b' , [1, 2] AS `my col`;") == ["'a, b'", "my col"]
    assert returned_columns("MATCH (n) RETURN /* c */ n.name // RETURN x, y") == ["n.name"]
    assert returned_columns("CALL { MATCH (n) RETURN n } RETURN n.x, {a: 1, b: 2}") == ["n.x", "{a: 1, b: 2}"]
    assert returned_columns("MATCH (n) RETURN n.x as y") == ["y"]
    assert returned_columns("MATCH (n) RETURN *") is None
    assert returned_columns("MATCH (n) SET n.x = 1") is None

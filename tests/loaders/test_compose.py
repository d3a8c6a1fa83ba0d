"""docker/compose.yaml: no Docker engine runs here, so check the file's content instead."""

from __future__ import annotations

import re

import yaml

from tests.conftest import REPO


def test_compose_starts_neo4j_5_community_with_a_volume_and_the_env_names():
    compose = yaml.safe_load((REPO / "docker" / "compose.yaml").read_text(encoding="utf-8"))
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == "neo4j:5-community"
    assert set(neo4j["ports"]) == {"7474:7474", "7687:7687"}
    volume, _, mount = neo4j["volumes"][0].partition(":")
    assert mount == "/data" and volume in compose["volumes"]
    auth = neo4j["environment"]["NEO4J_AUTH"]
    assert re.fullmatch(r"\$\{NEO4J_USERNAME:-neo4j\}/\$\{NEO4J_PASSWORD:\?[^}]+\}", auth)
    assert neo4j["healthcheck"]["test"][0] == "CMD-SHELL"

"""Graph stores and exports; importable as `kgbuild.loaders`.

- `store`: the `GraphStore` protocol every store implements, and `open_store`, which picks the
  store by its argument (a Bolt address, else a path of the embedded store).
- `records`: a graph checked against the schema, as store rows (refusals with reasons).
- `plan`: the Cypher statements that load rows (shared by both stores), Neo4j constraints.
- `embedded`: the embedded store (LadybugDB, `graph.lbdb`): load, query, replay a script;
  `query_store`: a graph.json queried through a store in the cache folder.
- `neo4j_store`: the same plan run on a Bolt server (Neo4j, FalkorDB) with the official driver;
  `bolt_schema`: what such a server supports (parameters, constraints, indexes), found by trying.
- `dialect`: parameter checks and Neo4j-only constructs; `examples`: queries for both stores.
- `graphml`, `neo4j_csv`, `cypher_script`: file exports.
"""

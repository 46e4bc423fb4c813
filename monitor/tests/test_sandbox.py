def test_it_starts_mariadb_with_performance_schema(mariadb):
    rows = mariadb.execute("SELECT @@performance_schema, VERSION()")
    assert rows[0][0] == 1
    assert "MariaDB" in rows[0][1]

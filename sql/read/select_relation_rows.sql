-- Every row of one table or view; the name (checked against select_relations) is a parameter.
SELECT * FROM query_table(?);

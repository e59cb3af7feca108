DROP TABLE proj_comparisons;

# diff area

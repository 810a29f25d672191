# control area

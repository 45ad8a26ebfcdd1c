"""Room ``rules``: the planner's decisions and readers, without a command line or a host — the
fit wall, the authority fold and admission, the inventory, the input readers, Engram staging,
launcher recipes, and the pending witness of the declared frontiers."""

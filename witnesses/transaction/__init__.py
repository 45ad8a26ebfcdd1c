"""Room ``transaction``: the apply transaction — its rendered steps and plan, its coordinator's
decisions, and its run for real (stage scripts in a sandbox, the ssh transport and the fleet
over real sshd)."""

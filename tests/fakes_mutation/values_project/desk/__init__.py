"""The fake planner the value-survey tests mutate."""

"""The fake planner the generated-survey tests mutate."""

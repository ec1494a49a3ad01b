"""The pieces of tests/tools/make_model_fixtures.py (its entry point)."""

"""The benchmarks: management commands that print tables (never installed with agentmemory).

A Django app of this repository's project only (``project/settings.py`` lists it), so they run the same
way as before, ``python manage.py agentmemory_bench_memory ...``, while the wheel ships only the
``agentmemory`` package and a host site never sees them.
"""

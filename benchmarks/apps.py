from django.apps import AppConfig


class BenchmarksConfig(AppConfig):
    name = "benchmarks"
    label = "agentmemory_benchmarks"
    verbose_name = "agentmemory benchmarks"

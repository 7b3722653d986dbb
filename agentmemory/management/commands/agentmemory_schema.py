"""Print (and optionally validate) the app's own OpenAPI schema, as its schema endpoint serves it."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.renderers import OpenApiYamlRenderer
from drf_spectacular.validation import validate_schema

from ...api.schema import generate_schema


class Command(BaseCommand):
    help = ("Print agentmemory's OpenAPI schema (only the app's endpoints, wherever the host mounted them). "
            "--validate checks it against the OpenAPI specification; generation warnings fail the command.")

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["yaml", "json"], default="yaml")
        parser.add_argument("--file", help="Write the schema here instead of standard output.")
        parser.add_argument("--validate", action="store_true",
                            help="Validate against the OpenAPI 3 specification; exit 1 on any warning or error.")

    def handle(self, *args, format: str, file: str | None, validate: bool, **options):
        GENERATOR_STATS.reset()
        schema = generate_schema()
        problems = [*GENERATOR_STATS._warn_cache, *GENERATOR_STATS._error_cache]
        if validate:
            try:
                validate_schema(schema)
            except Exception as exc:  # jsonschema's ValidationError, with the path of the problem
                problems.append(f"invalid OpenAPI document: {exc}")
        if format == "json":
            text = json.dumps(schema, indent=2, ensure_ascii=False)
        else:
            text = OpenApiYamlRenderer().render(schema, renderer_context={}).decode("utf-8")
        if file:
            with open(file, "w", encoding="utf-8") as handle:
                handle.write(text)
        elif not validate:
            self.stdout.write(text)
        if validate:
            if problems:
                raise CommandError(f"{len(problems)} problem(s) in the schema:\n" + "\n".join(map(str, problems)))
            self.stdout.write(f"Schema valid: {len(schema.get('paths', {}))} paths, 0 warnings, 0 errors.")

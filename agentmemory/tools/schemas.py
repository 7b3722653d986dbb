"""OpenAI-style tool schemas, generated from the tools' argument serializers (one source of truth)."""
from __future__ import annotations

from typing import Any

from rest_framework import serializers

from .registry import TOOLS, Tool


def field_schema(field: serializers.Field) -> dict[str, Any]:
    """The JSON schema of one DRF serializer field (the kinds the tools use)."""
    if isinstance(field, serializers.ChoiceField):
        schema: dict[str, Any] = {"type": "string", "enum": [str(c) for c in field.choices]}
    elif isinstance(field, serializers.BooleanField):
        schema = {"type": "boolean"}
    elif isinstance(field, serializers.IntegerField):
        schema = {"type": "integer"}
        if field.min_value is not None:
            schema["minimum"] = field.min_value
        if field.max_value is not None:
            schema["maximum"] = field.max_value
    elif isinstance(field, serializers.FloatField):
        schema = {"type": "number"}
    elif isinstance(field, serializers.ListField):
        schema = {"type": "array", "items": field_schema(field.child)}
    elif isinstance(field, serializers.DictField | serializers.JSONField):
        schema = {"type": "object"}
    elif isinstance(field, serializers.CharField):
        schema = {"type": "string"}
        if field.max_length is not None:
            schema["maxLength"] = field.max_length
    else:  # pragma: no cover - a tool with a new field kind must teach this function
        raise TypeError(f"no JSON schema for {type(field).__name__}")
    if getattr(field, "allow_null", False):
        schema = {"anyOf": [schema, {"type": "null"}]}
    if field.help_text:
        schema["description"] = str(field.help_text)
    return schema


def parameters_schema(tool: Tool) -> dict[str, Any]:
    fields = tool.arguments().fields
    return {
        "type": "object",
        "properties": {name: field_schema(field) for name, field in fields.items()},
        "required": [name for name, field in fields.items() if field.required],
        "additionalProperties": False,
    }


def openai_tools() -> list[dict[str, Any]]:
    """The tools in OpenAI's function-calling format (``tools=[...]`` of a chat completion)."""
    return [{"type": "function", "function": {"name": tool.name, "description": tool.description,
                                              "parameters": parameters_schema(tool)}}
            for tool in TOOLS.values()]

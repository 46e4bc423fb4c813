"""The forms' renderer: a field never writes back a value holding a NUL character.

Every text field refuses one (Django's ProhibitNullCharactersValidator), but the form shown again with that error
wrote the NUL into the page, where an HTML parser reads U+FFFD: the next submit sent something else than was typed.
"""

from django.forms.boundfield import BoundField
from django.forms.renderers import DjangoTemplates


def without_nul(value: object) -> object:
    """The value a field shows: "" for text holding a NUL, and a list (a multiple choice) without such items."""
    if isinstance(value, str):
        return "" if "\x00" in value else value
    if isinstance(value, list):
        return [v for v in value if not (isinstance(v, str) and "\x00" in v)]
    return value


class NulFreeBoundField(BoundField):
    def value(self) -> object:
        return without_nul(super().value())


class Renderer(DjangoTemplates):
    """settings.FORM_RENDERER: Django's own, with fields bound as NulFreeBoundField (Django 5.2+)."""

    bound_field_class = NulFreeBoundField

"""Forms of the runs page: mark a run or an annotation by hand."""

from django import forms

from dashboards.query_params import MAX_THREADS, MAX_WARMUP
from servers.models import Annotation, Run

DT = {"type": "datetime-local", "step": "1"}


class RunForm(forms.ModelForm):
    # The API's bounds: a run of 0 threads was listed with "0" and refused by the Scalability page as having none.
    concurrency = forms.IntegerField(min_value=1, max_value=MAX_THREADS, required=False,
                                     help_text="client threads the load used")
    warmup_seconds = forms.IntegerField(min_value=0, max_value=MAX_WARMUP, required=False,
                                        help_text="seconds at the start left out of the run's statistics (warm-up)")

    class Meta:
        model = Run
        fields = ["name", "server", "started_at", "ended_at", "notes", "concurrency", "warmup_seconds", "sweep",
                  "label"]
        widgets = {
            "started_at": forms.DateTimeInput(attrs=DT, format="%Y-%m-%dT%H:%M:%S"),
            "ended_at": forms.DateTimeInput(attrs=DT, format="%Y-%m-%dT%H:%M:%S"),
            "notes": forms.Textarea(attrs={"rows": 2}),
        }
        help_texts = {"started_at": "UTC", "ended_at": "UTC; empty while it runs"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["warmup_seconds"].required = False  # most runs marked by hand have none

    def clean_warmup_seconds(self) -> int:
        return self.cleaned_data.get("warmup_seconds") or 0

    def clean(self) -> dict:
        data = super().clean()
        start, end = data.get("started_at"), data.get("ended_at")
        if start and end and end < start:
            self.add_error("ended_at", "The run cannot end before it starts: check the two times (UTC).")
        return data


class AnnotationForm(forms.ModelForm):
    class Meta:
        model = Annotation
        fields = ["server", "at", "text"]
        widgets = {"at": forms.DateTimeInput(attrs=DT, format="%Y-%m-%dT%H:%M:%S")}
        help_texts = {"server": "empty: drawn on every server's charts", "at": "UTC"}

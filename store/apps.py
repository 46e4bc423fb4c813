from django.apps import AppConfig
from django.core.signals import request_finished, request_started


class StoreConfig(AppConfig):
    name = "store"
    label = "store"

    def ready(self) -> None:
        from store import catalog, partitions, read_raw, statement_reads

        # A page asks which levels hold data 15-32 times: a request lists each table's partitions once.
        request_started.connect(partitions.keep_oldest, dispatch_uid="store.partitions.keep_oldest")
        request_finished.connect(partitions.stop_keeping_oldest, dispatch_uid="store.partitions.stop_keeping")
        # The stability page reads the same hot rows for its ranking and its chart: a request reads them once.
        request_started.connect(read_raw.keep_rows, dispatch_uid="store.read_raw.keep_rows")
        request_finished.connect(read_raw.stop_keeping_rows, dispatch_uid="store.read_raw.stop_keeping_rows")
        # ... and asks for the server's layouts with every read.
        request_started.connect(catalog.keep_layouts, dispatch_uid="store.catalog.keep_layouts")
        request_finished.connect(catalog.stop_keeping_layouts, dispatch_uid="store.catalog.stop_keeping_layouts")
        # ... and for its metrics by name 4-12 times: a request reads each server's once.
        request_started.connect(catalog.keep_metrics, dispatch_uid="store.catalog.keep_metrics")
        request_finished.connect(catalog.stop_keeping_metrics, dispatch_uid="store.catalog.stop_keeping_metrics")
        # The Statements tab and a statement's page read a range's hourly rollups for the totals, then the lines.
        request_started.connect(statement_reads.keep_hours, dispatch_uid="store.statement_reads.keep_hours")
        request_finished.connect(statement_reads.stop_keeping_hours,
                                 dispatch_uid="store.statement_reads.stop_keeping_hours")

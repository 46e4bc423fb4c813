"""The admin's user forms: the two times held to servers.time_bounds, as every time a user types is, and the
names to servers.names, as every name is."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import User

from servers.names import Printable
from servers.time_bounds import within_bounds

# Django's username check refused a control character only as "Enter a valid username", and took them all in a
# first or last name, which the admin and the log lines show.
NAMES = {"username": Printable("The username"), "first_name": Printable("The first name"),
         "last_name": Printable("The last name")}


def check_names(fields: dict) -> None:
    for name, validator in NAMES.items():
        if name in fields:
            fields[name].validators.append(validator)


class BoundedUserChangeForm(UserChangeForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("last_login", "date_joined"):  # Django's form saved 0001-01-01 and 9999-12-31
            if name in self.fields:
                self.fields[name].validators.append(within_bounds)
        check_names(self.fields)


class PrintableUserCreationForm(AdminUserCreationForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        check_names(self.fields)


admin.site.unregister(User)


@admin.register(User)
class BoundedUserAdmin(UserAdmin):
    form = BoundedUserChangeForm
    add_form = PrintableUserCreationForm

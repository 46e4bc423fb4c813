"""The admin's user form with its two times held to servers.time_bounds, as every time a user types is."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.contrib.auth.models import User

from servers.time_bounds import within_bounds


class BoundedUserChangeForm(UserChangeForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("last_login", "date_joined"):  # Django's form saved 0001-01-01 and 9999-12-31
            if name in self.fields:
                self.fields[name].validators.append(within_bounds)


admin.site.unregister(User)


@admin.register(User)
class BoundedUserAdmin(UserAdmin):
    form = BoundedUserChangeForm

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import token_views, views
from accounts.attempts import limited

AUTH = "accounts/auth/"

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", limited("login")(auth_views.LoginView.as_view(
        template_name=AUTH + "login.html", redirect_authenticated_user=True)), name="login"),
    path("logout/", auth_views.LogoutView.as_view(template_name=AUTH + "logged_out.html"), name="logout"),
    path("password/change/", auth_views.PasswordChangeView.as_view(template_name=AUTH + "password_change_form.html"),
         name="password_change"),
    path("password/change/done/",
         auth_views.PasswordChangeDoneView.as_view(template_name=AUTH + "password_change_done.html"),
         name="password_change_done"),
    path("password/reset/", limited("password_reset")(auth_views.PasswordResetView.as_view(
        template_name=AUTH + "password_reset_form.html", email_template_name=AUTH + "password_reset_email.txt",
        subject_template_name=AUTH + "password_reset_subject.txt")), name="password_reset"),
    path("password/reset/done/", auth_views.PasswordResetDoneView.as_view(
        template_name=AUTH + "password_reset_done.html"), name="password_reset_done"),
    path("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        template_name=AUTH + "password_reset_confirm.html"), name="password_reset_confirm"),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(
        template_name=AUTH + "password_reset_complete.html"), name="password_reset_complete"),
    path("profile/", views.profile, name="profile"),
    path("profile/tokens/", token_views.api_tokens, name="api-tokens"),
]

from django.apps import AppConfig


class FifthFormatConfig(AppConfig):
    name = "tests.fifth_format"
    label = "fifth_format"

    def ready(self) -> None:
        import rulesets
        from formats import registry
        from tests.fifth_format.home import HOME
        from tests.fifth_format.ruleset import RULESET

        rulesets.register(RULESET)
        registry.register(HOME)

"""python manage.py recommend --model llama-3.1-70b --task inference --precision q4_k_m --context 8192
--users 5 [--max-price 2000000] [--form-factor workstation] [--ecc] [--target 20] [--json]"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from configurator.engine.errors import DomainError
from configurator.engine.types import ENGINES, PRECISIONS, SITE_VOLTAGES, TASKS
from configurator.serializers import WorkloadInputSerializer
from configurator.services import recommendation_make


class Command(BaseCommand):
    help = "Recommend the cheapest valid builds for a workload and print them as a table."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", required=True, help="library slug or Hugging Face id")
        parser.add_argument("--task", choices=TASKS, default="inference")
        parser.add_argument("--precision", choices=PRECISIONS)
        parser.add_argument("--engine", choices=ENGINES)
        parser.add_argument("--context", type=int, default=4096, help="context tokens per user")
        parser.add_argument("--users", type=int, default=1, help="concurrent users")
        parser.add_argument("--prompt-tokens", type=int, help="prompt tokens per request (default: context - output)")
        parser.add_argument("--output-tokens", type=int, help="output tokens per request (default min(512, context/4))")
        parser.add_argument("--target", type=float, help="decode tokens/s per user wanted")
        parser.add_argument("--ecc", action="store_true", help="require ECC GPU memory")
        parser.add_argument("--max-price", help="budget, RUB incl. VAT")
        parser.add_argument("--form-factor", choices=("workstation", "rack", "any"), default="any")
        parser.add_argument("--max-gpus", type=int)
        parser.add_argument("--max-power", type=int, help="largest load in W")
        parser.add_argument("--site-voltage", type=int, choices=SITE_VOLTAGES, default=230)
        parser.add_argument("--limit", type=int, default=5)
        parser.add_argument("--json", action="store_true", help="print the API response body as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        workload_data: dict[str, Any] = {
            "model": options["model"],
            "task": options["task"],
            "context_tokens": options["context"],
            "concurrent_users": options["users"],
            "require_ecc": options["ecc"],
        }
        for key, option in (
            ("precision", "precision"),
            ("engine", "engine"),
            ("target_tokens_per_s", "target"),
            ("prompt_tokens", "prompt_tokens"),
            ("output_tokens", "output_tokens"),
        ):
            if options[option] is not None:
                workload_data[key] = options[option]
        serializer = WorkloadInputSerializer(data=workload_data)
        if not serializer.is_valid():
            raise CommandError(json.dumps(serializer.errors))
        constraints: dict[str, Any] = {
            "form_factor": options["form_factor"],
            "site_voltage": options["site_voltage"],
            "require_ecc": options["ecc"],
            "max_gpus": options["max_gpus"],
            "max_power_w": options["max_power"],
        }
        if options["max_price"]:
            constraints["max_price"] = options["max_price"]
        try:
            body = recommendation_make(
                workload=serializer.to_workload(), constraints=constraints, limit=options["limit"]
            )
        except DomainError as error:
            raise CommandError(f"{error.message} {json.dumps(error.fields)}") from error
        if options["json"]:
            self.stdout.write(json.dumps(body, ensure_ascii=False, indent=2))
            return
        self._table(body)

    def _table(self, body: dict[str, Any]) -> None:
        out = self.stdout.write
        candidates = body["candidates"]
        out(f"{len(candidates)} build(s); {body['considered']} builds validated in {body['elapsed_ms']:.0f} ms")
        if not candidates:
            out("Nothing in the catalog fits. What would:")
            for tip in body["suggestions"]:
                out(f"  - {tip}")
            return
        header = f"{'#':>2}  {'GPUs':28s} {'chassis':22s} {'CPU':16s} {'RAM GB':>6s} {'PSUs':20s} "
        header += f"{'tok/s/user':>10s} {'tok/s total':>11s} {'full load':>9s} {'load W':>7s} {'gross RUB':>14s}"
        out(header)
        out("-" * len(header))
        for index, candidate in enumerate(candidates, 1):
            build = candidate["build"]
            gpus = ", ".join(f"{line['qty']}× {line['sku']}" for line in build["gpus"])
            cpus = ", ".join(f"{line['qty']}× {line['sku']}" for line in build["cpus"])
            psus = ", ".join(f"{line['qty']}× {line['sku']}" for line in build["psus"])
            ram = sum(
                int(line["qty"]) * int(line["sku"].split("-")[-1].removesuffix("gb"))
                for line in build["memory"]
                if line["sku"].endswith("gb")
            )
            power = candidate["verdict"]["power"]
            out(
                f"{index:>2}  {gpus:28s} {build['chassis']:22s} {cpus:16s} {ram:>6d} {psus:20s} "
                f"{candidate['decode_tokens_per_s_per_user']:>10.1f} {candidate['decode_tokens_per_s_total']:>11.1f} "
                f"{candidate['served_output_tokens_per_s']:>9.0f} "
                f"{power['load_w']:>7.0f} {float(candidate['price']['gross']):>14,.0f}"
            )
        out("")
        for index, candidate in enumerate(candidates, 1):
            out(f"{index}. " + "; ".join(candidate["why"]))

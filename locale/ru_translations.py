"""Russian translations of the site's strings, applied to locale/ru/LC_MESSAGES/django.po.

`makemessages` rewrites the .po file from the sources; this table is where the Russian text lives, so
a new msgid only needs a line here. Run:

    .venv/bin/python manage.py makemessages -l ru -l en
    .venv/bin/python locale/ru_translations.py
    .venv/bin/python manage.py compilemessages

Plural entries give the four Russian forms (1, 2–4, 5–20, fractions) as a tuple; an entry with a
context (`pgettext`, `{% translate … context … %}`) is keyed by (context, msgid).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

RU: dict[str | tuple[str, str], str | tuple[str, str, str, str]] = {
    # accounts
    "E-mail": "Эл. почта",
    "Quotes are sent to this address.": "На этот адрес придут коммерческие предложения.",
    "Company": "Компания",
    "An account with this e-mail already exists.": "Учётная запись с этим адресом уже есть.",
    "Welcome! Your account is ready.": "Добро пожаловать! Учётная запись создана.",
    "A new API token was issued.": "Выпущен новый токен API.",
    "Your API token was created.": "Токен API создан.",
    "Sales engineer": "Инженер по продажам",
    "Catalog staff": "Сотрудник каталога",
    "Customer": "Заказчик",
    # workload form
    "Model": "Модель",
    "A model from the library (type to search) or a Hugging Face id.": (
        "Модель из библиотеки (начните вводить название) или идентификатор Hugging Face."
    ),
    "Or paste the model's config.json": "Или вставьте config.json модели",
    "Task": "Задача",
    "Weight precision": "Точность весов",
    "The model's native precision": "Родная точность модели",
    "Context length, tokens": "Длина контекста, токенов",
    "For fine-tuning: the training sequence length.": "Для дообучения — длина обучающей последовательности.",
    "Concurrent users": "Одновременных пользователей",
    "Target speed per user, tokens/s": "Целевая скорость на пользователя, ток/с",
    "Empty: an interactive 10 tokens/s.": "Если пусто — 10 ток/с, комфортно для чата.",
    "Budget, RUB incl. VAT": "Бюджет, ₽ с НДС",
    "Form factor": "Форм-фактор",
    "ECC memory required": "Нужна память с ECC",
    "Inference engine": "Движок инференса",
    "Chosen by precision": "По точности весов",
    "KV cache precision": "Точность KV-кэша",
    "Engine default": "Как в движке по умолчанию",
    "This is not valid JSON: %(reason)s": "Это не корректный JSON: %(reason)s",
    "Paste the whole config.json object ({…}).": "Вставьте весь объект config.json ({…}).",
    "Pick a model or paste its config.json.": "Выберите модель или вставьте её config.json.",
    "Unknown model. Pick one from the list or paste its config.json.": (
        "Неизвестная модель. Выберите её из списка или вставьте config.json."
    ),
    "The workload cannot be estimated: %(reason)s": "Нагрузку не удаётся оценить: %(reason)s",
    # build editor form
    "— choose —": "— выберите —",
    "Part": "Комплектующее",
    "Quantity": "Количество",
    "Chassis": "Платформа",
    "PSU redundancy": "Резервирование БП",
    "Site voltage": "Напряжение сети",
    "Build name": "Название сборки",
    "Notes": "Заметки",
    "The workload could not be read; open the build from the workload page again.": (
        "Не удалось прочитать нагрузку; откройте сборку со страницы подбора ещё раз."
    ),
    "I have read the warnings": "Я прочитал предупреждения",
    "Myself": "Для себя",
    # finding titles
    "No CPU": "Нет процессора",
    "The CPU does not fit the socket": "Процессор не подходит к сокету платформы",
    "Wrong number of CPUs": "Неверное число процессоров",
    "A single-socket CPU in a multi-socket build": "Однопроцессорная модель CPU в двухсокетной сборке",
    "Different CPU models": "Разные модели процессоров",
    "An empty CPU socket": "Пустой сокет процессора",
    "GPUs without ECC memory": "Видеокарты без ECC-памяти",
    "System memory without ECC": "Оперативная память без ECC",
    "Too many GPUs for the chassis": "Слишком много видеокарт для платформы",
    "The GPU is too thick for the slots": "Видеокарта слишком толстая для слотов",
    "The GPU is too long for the chassis": "Видеокарта слишком длинная для корпуса",
    "The GPU draws more than the chassis can cool": "Видеокарта потребляет больше, чем может охладить платформа",
    "The GPU form factor does not fit the chassis": "Форм-фактор видеокарты не подходит к платформе",
    "The GPU is too tall for the chassis": "Видеокарта слишком высокая для корпуса",
    "Not enough drive bays": "Не хватает отсеков для накопителей",
    "The chassis type does not suit the build": "Тип платформы не подходит для сборки",
    "Passive GPUs without server airflow": "Пассивные видеокарты без серверного обдува",
    "Open-fan GPUs packed side by side": "Видеокарты с открытыми вентиляторами стоят вплотную",
    "The GPUs have no NVLink": "У видеокарт нет NVLink",
    "The bridge does not match the GPUs": "Мост не подходит к видеокартам",
    "Different GPU models joined by a bridge": "Мостом соединены разные модели видеокарт",
    "Wrong bridge width for the GPU count": "Мост не на то число видеокарт",
    "Wrong number of bridge sets": "Неверное число комплектов мостов",
    "NVLink bridges are missing": "Не хватает мостов NVLink",
    "Some GPUs have no bridge": "Часть видеокарт без моста",
    "NVLink is possible but not used": "NVLink возможен, но не используется",
    "This GPU needs an NVSwitch platform": "Этой видеокарте нужна платформа с NVSwitch",
    "The bridge spacing does not match the slots": "Шаг моста не совпадает со слотами",
    "Tensor parallelism over PCIe": "Тензорный параллелизм через PCIe",
    "No system memory": "Нет оперативной памяти",
    "Wrong memory type for the platform": "Тип памяти не подходит к платформе",
    "ECC RDIMM memory is required": "Нужна память ECC RDIMM",
    "ECC and non-ECC modules mixed": "Смешаны модули с ECC и без ECC",
    "Different memory modules": "Разные модули памяти",
    "Not enough memory slots": "Не хватает слотов памяти",
    "Memory channels filled unevenly": "Каналы памяти заполнены неравномерно",
    "Two modules per channel lower the memory speed": "Два модуля на канал снижают частоту памяти",
    "Less system memory than video memory": "Оперативной памяти меньше, чем видеопамяти",
    "System memory below twice the video memory": "Оперативной памяти меньше двойного объёма видеопамяти",
    "Not enough PCIe lanes in the GPU slots": "Не хватает линий PCIe в слотах видеокарт",
    "GPUs run at PCIe x8": "Видеокарты работают в режиме PCIe x8",
    "GPUs share a PCIe uplink": "Видеокарты делят общий канал PCIe",
    "PCIe switches: check the peer-to-peer settings": "PCIe-коммутаторы: проверьте настройки P2P",
    "Not enough CPU PCIe lanes": "Не хватает линий PCIe процессоров",
    "Not enough PSU power": "Не хватает мощности блоков питания",
    "Little PSU headroom": "Мал запас мощности блоков питания",
    "Different PSU models": "Разные модели блоков питания",
    "The PSU form factor does not fit the chassis": "Форм-фактор блока питания не подходит к платформе",
    "Not enough PSU bays": "Не хватает отсеков для блоков питания",
    "The chassis does not support this redundancy": "Платформа не поддерживает такое резервирование",
    "The PSU count does not match the redundancy": "Число блоков питания не соответствует резервированию",
    "The PSU does not run on the site voltage": "Блок питания не работает от напряжения сети",
    "Not enough GPU power cables": "Не хватает кабелей питания видеокарт",
    "The load exceeds a 120 V circuit": "Нагрузка больше, чем выдерживает линия 120 В",
    "Power spikes can trip the PSU": "Пики мощности могут отключить блок питания",
    "The workload cannot be estimated": "Нагрузку не удаётся оценить",
    "No GPU for the workload": "Нет видеокарты для нагрузки",
    "Not enough video memory for the workload": "Не хватает видеопамяти для нагрузки",
    "Slower than the target speed": "Медленнее целевой скорости",
    "The inference engine does not support these GPUs": "Движок инференса не поддерживает эти видеокарты",
    "AMD GPUs need the ROCm software stack": "Видеокартам AMD нужен программный стек ROCm",
    # units
    ("unit", "W"): "Вт",
    ("unit", "V"): "В",
    ("unit", "GiB"): "ГиБ",
    ("unit", "GB"): "ГБ",
    ("unit", "GB/s"): "ГБ/с",
    ("unit", "tokens/s"): "ток/с",
    ("unit", "U"): "U",
    ("unit", "mm"): "мм",
    ("unit", "ms"): "мс",
    ("unit", "%"): "%",
    ("unit", "CPUs"): "процессоры",
    ("unit", "GPUs"): "видеокарты",
    ("unit", "PSUs"): "блоки питания",
    ("unit", "DIMMs"): "модули памяти",
    ("unit", "lanes"): "линий",
    ("unit", "slots"): "слотов",
    ("unit", "sockets"): "сокетов",
    ("unit", "drives"): "накопителей",
    ("unit", "models"): "моделей",
    ("unit", "bridge sets"): "комплектов мостов",
    ("unit", "bridged GPUs"): "видеокарт с мостом",
    ("unit", "GPUs per bridge"): "видеокарт на мост",
    ("unit", "GPUs per uplink"): "видеокарт на канал",
    ("unit", "DIMMs per channel"): "модулей на канал",
    ("unit", "DIMMs per socket"): "модулей на сокет",
    ("unit", "CPU models"): "моделей процессоров",
    ("unit", "DIMM models"): "моделей памяти",
    ("unit", "GPU models"): "моделей видеокарт",
    # severities, kinds, choices
    "Error": "Ошибка",
    "Warning": "Предупреждение",
    "Note": "Замечание",
    "CPUs": "Процессоры",
    "GPUs": "Видеокарты",
    "PSUs": "Блоки питания",
    "Power supplies": "Блоки питания",
    "Memory": "Оперативная память",
    "Storage": "Накопители",
    "Network cards": "Сетевые карты",
    "NVLink bridges": "Мосты NVLink",
    "Inference": "Инференс",
    "LoRA fine-tuning": "Дообучение LoRA",
    "QLoRA fine-tuning": "Дообучение QLoRA",
    "Full fine-tuning": "Полное дообучение",
    "Any": "Любой",
    "Workstation": "Рабочая станция",
    "Rack server": "Стоечный сервер",
    "Tower workstation": "Рабочая станция (башня)",
    "Rack workstation": "Стоечная рабочая станция",
    "HGX server": "Сервер HGX",
    "none": "нет",
    "N+1": "N+1",
    "N+N": "N+N",
    "one GPU": "одна видеокарта",
    "split by layers": "разбиение по слоям",
    "tensor parallel": "тензорный параллелизм",
    "data parallel": "параллелизм по данным",
    "Weights": "Веса",
    "KV cache": "KV-кэш",
    "Activations": "Активации",
    "Gradients": "Градиенты",
    "Optimizer": "Оптимизатор",
    "Overhead": "Служебная память",
    # presets (the article's use cases)
    "7–8B chat for a beginner (Q4)": "Чат на модели 7–8B для начала (Q4)",
    "30B model on a workstation (Q4)": "Модель 30B на рабочей станции (Q4)",
    "70B for a team of five (Q4)": "70B для команды из пяти человек (Q4)",
    "LoRA of an 8B model": "LoRA модели 8B",
    "QLoRA of a 70B model": "QLoRA модели 70B",
    "Full fine-tuning of an 8B model": "Полное дообучение модели 8B",
    "70B FP8 serving 50 users": "70B в FP8 на 50 пользователей",
    "DeepSeek-V3 serving": "Сервис на DeepSeek-V3",
    "405B in FP8": "405B в FP8",
    "Production service with ECC": "Промышленный сервис с ECC",
    # fixes
    "Add %(qty)s × %(sku)s": "Добавить %(qty)s × %(sku)s",
    "Remove %(qty)s × %(sku)s": "Убрать %(qty)s × %(sku)s",
    "Use the chassis %(sku)s": "Взять платформу %(sku)s",
    "Replace %(what)s with %(qty)s × %(sku)s": "Заменить «%(what)s» на %(qty)s × %(sku)s",
    "Replace %(what)s with %(sku)s": "Заменить «%(what)s» на %(sku)s",
    "Set the PSU redundancy to %(value)s": "Резервирование БП: %(value)s",
    "Connect to a 230 V circuit": "Подключить к сети 230 В",
    # editor messages
    "This fix could not be applied; the build was not changed.": (
        "Это исправление применить не удалось; сборка не изменилась."
    ),
    "Name the build to save it.": "Чтобы сохранить сборку, дайте ей название.",
    "The build was saved.": "Сборка сохранена.",
    "Quote %(number)s was made.": "Коммерческое предложение %(number)s создано.",
    # quote forms and labels
    "Status": "Статус",
    "All statuses": "Все статусы",
    "Show earlier revisions too": "Показывать и прежние редакции",
    "Discount, %": "Скидка, %",
    "Reason (optional)": "Причина (необязательно)",
    "Draft": "Черновик",
    "Awaiting approval": "На согласовании",
    "Approved": "Согласовано",
    "Sent": "Отправлено",
    "Accepted": "Принято",
    "Rejected": "Отклонено",
    "Expired": "Истекло",
    "Superseded": "Заменено новой редакцией",
    "Queued": "в очереди",
    "Rendering": "формируется",
    "Ready": "готов",
    "Failed, will be retried": "ошибка, будет повтор",
    "Quote created": "КП создано",
    "Status changed": "Статус изменён",
    "New revision": "Новая редакция",
    "Prices refreshed": "Цены обновлены",
    "PDF ready": "PDF готов",
    "PDF rendering failed": "Не удалось сформировать PDF",
    "PDF rendering queued again": "PDF поставлен в очередь повторно",
    "E-mailed to the customer": "Отправлено заказчику по почте",
    "E-mail failed": "Письмо не отправлено",
    "Submit for approval": "Отправить на согласование",
    "Approve": "Согласовать",
    "Send to the customer": "Отправить заказчику",
    "Make a new revision": "Создать новую редакцию",
    "Accept the quote": "Принять предложение",
    "Reject the quote": "Отклонить предложение",
    "Refresh prices": "Обновить цены",
    "The quote was submitted for approval.": "КП отправлено на согласование.",
    "The quote was approved.": "КП согласовано.",
    "The quote was sent to the customer.": "КП отправлено заказчику.",
    "A new revision was made.": "Создана новая редакция.",
    "You accepted the quote.": "Вы приняли предложение.",
    "You rejected the quote.": "Вы отклонили предложение.",
    "The prices were refreshed from the catalog.": "Цены обновлены по каталогу.",
    "You are not allowed to do this.": "У вас нет прав на это действие.",
    "Only sales engineers may give a discount.": "Скидку может дать только инженер по продажам.",
    "Another sales engineer must approve this quote.": "Это КП должен согласовать другой инженер по продажам.",
    "The quote cannot do this in its current status.": "В текущем статусе КП это действие недоступно.",
    "The discount is above the limit: submit the quote for approval first.": (
        "Скидка выше лимита: сначала отправьте КП на согласование."
    ),
    "This is not the latest revision; open the latest one.": "Это не последняя редакция; откройте последнюю.",
    "The quote has expired.": "Срок действия КП истёк.",
    "Some parts are no longer sold; revise the build.": "Часть комплектующих больше не продаётся; измените сборку.",
    "The build has errors: fix them before asking for a quote.": (
        "В сборке есть ошибки: исправьте их, прежде чем запрашивать КП."
    ),
    "The build has warnings: tick “I have read the warnings” to ask for a quote.": (
        "В сборке есть предупреждения: отметьте «Я прочитал предупреждения», чтобы запросить КП."
    ),
    "Not found.": "Не найдено.",
    "The input is not valid.": "Введены некорректные данные.",
    "from revision R%(revision)s": "из редакции R%(revision)s",
    "%(count)s line changed": (
        "изменена %(count)s строка",
        "изменены %(count)s строки",
        "изменено %(count)s строк",
        "изменено %(count)s строки",
    ),
    # error pages
    "Not found": "Не найдено",
    "There is nothing here, or it is not yours to see.": "Здесь ничего нет — или это не предназначено для вас.",
    "Back to the configurator": "Вернуться к подбору",
    "Something went wrong": "Что-то пошло не так",
    "The error has been logged. Please try again in a minute.": (
        "Ошибка записана в журнал. Попробуйте ещё раз через минуту."
    ),
    # account page
    "Account": "Учётная запись",
    "You": "Вы",
    "User name": "Имя пользователя",
    "Role": "Роль",
    "API token": "Токен API",
    "Scripts and other programs use the API at /api/v1/ with the header “Authorization: Token <key>”.": (
        "Скрипты и другие программы работают с API по адресу /api/v1/ с заголовком «Authorization: Token <ключ>»."
    ),
    "Your token": "Ваш токен",
    "Created %(created)s. Keep it secret: it acts as you.": (
        "Создан %(created)s. Храните его в секрете: он действует от вашего имени."
    ),
    "You have no API token yet.": "Токена API у вас пока нет.",
    "Replace with a new token": "Заменить новым токеном",
    "Create a token": "Создать токен",
    "The current token stops working at once.": "Текущий токен сразу перестанет работать.",
    "Log in": "Войти",
    "No account yet?": "Ещё нет учётной записи?",
    "Sign up as a customer": "Зарегистрируйтесь как заказчик",
    "Sign up": "Регистрация",
    "A customer account lets you save builds and ask for quotes.": (
        "С учётной записью заказчика можно сохранять сборки и запрашивать коммерческие предложения."
    ),
    "Create the account": "Зарегистрироваться",
    "Already have an account?": "Уже есть учётная запись?",
    # base layout
    "GPU configurator": "Конфигуратор GPU",
    "Skip to content": "Перейти к содержимому",
    "Main menu": "Главное меню",
    ("menu", "Find a build"): "Подбор",
    ("menu", "Build editor"): "Редактор",
    ("menu", "Saved builds"): "Сборки",
    ("menu", "Quotes"): "КП",
    "Saved builds": "Сохранённые сборки",
    "Quotes": "Коммерческие предложения",
    "Language": "Язык",
    "Account:": "Учётная запись:",
    "Log out": "Выйти",
    "Memory in GiB (2³⁰ bytes), power in watts, prices in roubles with VAT unless marked otherwise.": (
        "Память — в ГиБ (2³⁰ байт), мощность — в ваттах, цены — в рублях с НДС, если не указано иное."
    ),
    "API documentation": "Документация API",
    # bars
    "Video memory of each GPU (%(count)s × %(sku)s)": "Видеопамять каждой видеокарты (%(count)s × %(sku)s)",
    "Each GPU needs %(need)s %(unit)s of %(usable)s %(unit)s usable": (
        "Каждой видеокарте нужно %(need)s %(unit)s из %(usable)s %(unit)s доступных"
    ),
    "free": "свободно",
    "Split over the GPUs: %(how)s.": "Распределение по видеокартам: %(how)s.",
    "The bar of each GPU below splits that GPU's need in the same proportions.": (
        "Полоса каждой видеокарты ниже делит её потребность в тех же пропорциях."
    ),
    "Power: load / usable PSU capacity (redundancy %(redundancy)s, %(voltage)s V)": (
        "Питание: нагрузка / мощность БП (резервирование %(redundancy)s, %(voltage)s\u00a0В)"
    ),
    "Power load %(load)s %(unit)s of %(capacity)s %(unit)s usable": (
        "Нагрузка %(load)s %(unit)s из %(capacity)s %(unit)s доступных"
    ),
    "PCIe lanes: needed / provided by the CPUs": "Линии PCIe: нужно / есть у процессоров",
    "%(needed)s of %(available)s %(unit)s used": "Занято %(needed)s из %(available)s %(unit)s",
    # candidate card
    "Cheapest valid build": "Самая дешёвая подходящая сборка",
    "Option %(rank)s": "Вариант %(rank)s",
    "Passes every rule": "Проходит все проверки",
    "Has errors": "Есть ошибки",
    "%(counter)s warning": (
        "%(counter)s предупреждение",
        "%(counter)s предупреждения",
        "%(counter)s предупреждений",
        "%(counter)s предупреждения",
    ),
    "Price incl. VAT": "Цена с НДС",
    "Speed per user": "Скорость на пользователя",
    "Speed, all users": "Скорость, все пользователи",
    "Power draw": "Потребление",
    "Size": "Размер",
    "tower": "башня",
    "Price without VAT": "Цена без НДС",
    "%(counter)s part": (
        "%(counter)s позиция",
        "%(counter)s позиции",
        "%(counter)s позиций",
        "%(counter)s позиции",
    ),
    "Notes on this build": "Замечания к сборке",
    "Why this build": "Почему эта сборка",
    "Open in the build editor": "Открыть в редакторе",
    "Log in to save or quote it": "Войдите, чтобы сохранить или запросить КП",
    # editor
    "Check": "Проверка",
    "Chassis and power": "Платформа и питание",
    "Checked against the workload:": "Проверяется под нагрузку:",
    "pasted config.json": "вставленный config.json",
    "%(tokens)s tokens of context": "контекст %(tokens)s токенов",
    "%(counter)s user": (
        "%(counter)s пользователь",
        "%(counter)s пользователя",
        "%(counter)s пользователей",
        "%(counter)s пользователя",
    ),
    "%(kind)s, line %(n)s": "%(kind)s, строка %(n)s",
    "Qty": "Кол-во",
    "Remove %(kind)s, line %(n)s": "Удалить: %(kind)s, строка %(n)s",
    "Remove this line": "Удалить строку",
    "None": "Нет",
    "Add: %(kind)s": "Добавить: %(kind)s",
    "Name and notes": "Название и заметки",
    "Found %(measured)s, limit %(limit)s": "Сейчас %(measured)s, предел %(limit)s",
    "Fix:": "Исправление:",
    "Apply": "Применить",
    "Details": "Подробности",
    "Matching models": "Подходящие модели",
    "%(params)s B params · context %(context)s": "%(params)s млрд параметров · контекст %(context)s",
    "No model in the library matches. Paste its config.json below.": (
        "В библиотеке такой модели нет. Вставьте её config.json ниже."
    ),
    "Unit price": "Цена за шт.",
    "Total": "Сумма",
    "List prices without VAT.": "Цены по прайс-листу, без НДС.",
    # results
    "Please correct the marked fields.": "Исправьте отмеченные поля.",
    "%(counter)s build for %(model_name)s": (
        "%(counter)s сборка для %(model_name)s",
        "%(counter)s сборки для %(model_name)s",
        "%(counter)s сборок для %(model_name)s",
        "%(counter)s сборки для %(model_name)s",
    ),
    "%(considered)s builds checked in %(elapsed)s ms; the cheapest valid ones are shown first.": (
        "Проверено сборок: %(considered)s за %(elapsed)s мс; сначала самые дешёвые из подходящих."
    ),
    "What the model needs": "Что нужно модели",
    "Parameters": "Параметры",
    "%(total)s B total, %(active)s B active": "%(total)s млрд всего, %(active)s млрд активных",
    "Memory, all GPUs together": "Память, все видеокарты вместе",
    "Memory breakdown of the model": "Распределение памяти модели",
    "Assumptions behind these figures": "Допущения расчёта",
    "No build in the catalog fits this workload within these limits.": (
        "Ни одна сборка из каталога не подходит под эту нагрузку в заданных ограничениях."
    ),
    "What would make it fit:": "Что поможет:",
    "Pick a model and press “Find builds”, or start from one of the examples above.": (
        "Выберите модель и нажмите «Подобрать сборки» — или начните с одного из примеров выше."
    ),
    # verdict
    "Pick a chassis to check the build.": "Выберите платформу, чтобы проверить сборку.",
    "Correct the marked fields to check the build.": "Исправьте отмеченные поля, чтобы проверить сборку.",
    "The build cannot be checked as entered:": "Сборку в таком виде проверить нельзя:",
    "The build passes every rule.": "Сборка проходит все проверки.",
    "%(counter)s warning to read.": (
        "Прочтите %(counter)s предупреждение.",
        "Прочтите %(counter)s предупреждения.",
        "Прочтите %(counter)s предупреждений.",
        "Прочтите %(counter)s предупреждения.",
    ),
    "%(counter)s error: this build cannot be quoted yet.": (
        "%(counter)s ошибка: КП по этой сборке пока не сделать.",
        "%(counter)s ошибки: КП по этой сборке пока не сделать.",
        "%(counter)s ошибок: КП по этой сборке пока не сделать.",
        "%(counter)s ошибки: КП по этой сборке пока не сделать.",
    ),
    "Without VAT": "Без НДС",
    "VAT": "НДС",
    "Memory modules": "Модули памяти",
    "Installed PSU power": "Установленная мощность БП",
    "Findings": "Результаты проверки",
    "Parts and prices": "Комплектующие и цены",
    "Save or quote": "Сохранение и КП",
    "Save changes": "Сохранить изменения",
    "Save the build": "Сохранить сборку",
    "Request a quote": "Запросить КП",
    "A quote can be requested once the build has no errors.": "КП можно запросить, когда в сборке не останется ошибок.",
    # workload page
    "Paste a config.json instead": "Вставить config.json вместо названия",
    "Engine and KV cache": "Движок и KV-кэш",
    "Find builds": "Подобрать сборки",
    "Searching the catalog…": "Ищем в каталоге…",
    "Recommended builds": "Рекомендованные сборки",
    "New build": "Новая сборка",
    (
        "Pick a chassis and add parts. Every change is checked against the integrator's rules at once; "
        "each problem comes with a fix you can apply."
    ): (
        "Выберите платформу и добавьте комплектующие. Каждое изменение сразу проверяется по правилам "
        "интегратора; к каждой проблеме предлагается исправление, которое можно применить."
    ),
    "Name": "Название",
    "Owner": "Владелец",
    "Changed": "Изменена",
    "passes": "проходит",
    "has errors": "есть ошибки",
    "No saved builds yet. Start from a recommendation or build one from scratch.": (
        "Сохранённых сборок пока нет. Начните с рекомендации или соберите с нуля."
    ),
    "Find a build for your model": "Подбор сборки под модель",
    "Find a GPU build for your model": "Подберите GPU-сборку под свою модель",
    (
        "Describe what you want to run. We estimate the memory and speed, check every build against the "
        "integrator's rules and show the cheapest ones that pass."
    ): (
        "Опишите, что хотите запускать. Мы оценим память и скорость, проверим каждую сборку по правилам "
        "интегратора и покажем самые дешёвые из подходящих."
    ),
    "Examples from the guide": "Примеры из гайда",
    "GPU workstation and server configurator": "Конфигуратор рабочих станций и серверов с GPU",
    "Describe a workload, get a build that is proven to fit, and turn it into a quote.": (
        "Опишите нагрузку, получите проверенную сборку и превратите её в коммерческое предложение."
    ),
    "GPU catalog (API)": "Каталог видеокарт (API)",
    "Catalog administration": "Администрирование каталога",
    # quote pages
    "Download the PDF (%(label)s)": "Скачать PDF (%(label)s)",
    "The PDF is being prepared": "PDF готовится",
    "Quote %(label)s": "КП %(label)s",
    "Quote %(number)s": "КП %(number)s",
    "This is an earlier revision.": "Это прежняя редакция.",
    "Open the latest revision": "Открыть последнюю редакцию",
    "Lines": "Позиции",
    "List price": "Цена по прайсу",
    "optional, not in the total": "опция, не входит в сумму",
    "Total without VAT": "Итого без НДС",
    "VAT %(rate)s %%": "НДС %(rate)s %%",
    "Total incl. VAT": "Итого с НДС",
    "Notes from the build check": "Замечания проверки сборки",
    "Terms": "Условия",
    "PDF": "PDF",
    "Prepared by": "Подготовил",
    "Created": "Создано",
    "Valid until": "Действительно до",
    "set when sent": "устанавливается при отправке",
    "Discount": "Скидка",
    "Revisions": "Редакции",
    "Actions": "Действия",
    "History": "История",
    "Every customer's quotes, newest first.": "КП всех заказчиков, сначала новые.",
    "Your quotes, newest first.": "Ваши КП, сначала новые.",
    "Filter": "Показать",
    "Number": "Номер",
    "Pages": "Страницы",
    "Previous": "Назад",
    "Page %(n)s of %(total)s": "Страница %(n)s из %(total)s",
    "Next": "Дальше",
    "No quotes here yet. Open a build and press “Request a quote”.": (
        "КП пока нет. Откройте сборку и нажмите «Запросить КП»."
    ),
    # recommendations: why a build is there, what would make a workload fit (Phrase in configurator/recommend.py)
    "the cheapest valid build": "самая дешёвая корректная сборка",
    "the most tokens/s per rouble": "больше всего ток/с на рубль",
    "the cheapest with ECC GPU memory": "самая дешёвая с ECC-памятью GPU",
    "fewer, larger GPUs": "меньше GPU, но крупнее",
    "the cheapest in the other form factor": "самая дешёвая в другом форм-факторе",
    "the next cheapest GPU choice": "следующий по цене вариант GPU",
    "under tensor parallel": "при тензорном параллелизме",
    "sharded (ZeRO)": "с шардированием (ZeRO)",
    "on one GPU": "на одном GPU",
    "with the layers split across GPUs": "при разбиении по слоям",
    "no redundancy": "без резерва",
    "%(sets)s× %(kinds)s NVLink bridge": "мостами NVLink %(kinds)s × %(sets)s",
    "NVSwitch": "NVSwitch",
    "%(reason)s (%(price)s %(currency)s incl. VAT)": "%(reason)s (%(price)s %(currency)s с НДС)",
    "%(count)s× %(gpu)s: %(model)s at %(precision)s needs %(per_gpu)s GiB per GPU %(how)s, %(usable)s GiB usable": (
        "%(count)s× %(gpu)s: %(model)s в %(precision)s требует %(per_gpu)s ГиБ на GPU %(how)s, доступно %(usable)s ГиБ"
    ),
    "%(count)s× %(gpu)s with %(link)s: %(model)s at %(precision)s needs %(per_gpu)s GiB per GPU "
    "%(how)s, %(usable)s GiB usable": (
        "%(count)s× %(gpu)s, связанные %(link)s: %(model)s в %(precision)s требует %(per_gpu)s ГиБ на GPU "
        "%(how)s, доступно %(usable)s ГиБ"
    ),
    "decode ≈ %(per_user)s tokens/s per user, %(total)s tokens/s for %(users)s user(s)": (
        "генерация ≈ %(per_user)s ток/с на пользователя, %(total)s ток/с всего (пользователей: %(users)s)"
    ),
    "below the %(target)s tokens/s per user asked for: no build in the catalog meets it": (
        "ниже запрошенных %(target)s ток/с на пользователя: ни одна сборка из каталога их не даёт"
    ),
    "below the default interactive %(target)s tokens/s per user: no build in the catalog meets it": (
        "ниже комфортных для чата %(target)s ток/с на пользователя: ни одна сборка из каталога их не даёт"
    ),
    "meets the default interactive speed of %(target)s tokens/s per user (≈ 2× reading speed)": (
        "даёт комфортные для чата %(target)s ток/с на пользователя (≈ 2× скорости чтения)"
    ),
    "%(chassis)s; %(load)s W load on %(capacity)s W usable (%(redundancy)s)": (
        "%(chassis)s; нагрузка %(load)s Вт при доступных %(capacity)s Вт (%(redundancy)s)"
    ),
    "ECC GPU memory": "ECC-память GPU",
    "warnings to acknowledge: %(codes)s": "предупреждения, которые нужно принять: %(codes)s",
    "%(count)s× %(gpu)s in %(chassis)s": "%(count)s× %(gpu)s в %(chassis)s",
    "raise the budget to %(amount)s %(currency)s (%(what)s)": "поднять бюджет до %(amount)s %(currency)s (%(what)s)",
    "allow rack servers (%(what)s)": "разрешить стоечные серверы (%(what)s)",
    "allow tower workstations (%(what)s)": "разрешить рабочие станции tower (%(what)s)",
    "allow %(count)s GPUs (%(what)s)": "разрешить %(count)s GPU (%(what)s)",
    "allow %(load)s W of load (%(what)s)": "разрешить нагрузку %(load)s Вт (%(what)s)",
    "allow chassis %(chassis)s": "разрешить платформу %(chassis)s",
    "use a 200–240 V circuit (%(what)s)": "подключить к сети 200–240 В (%(what)s)",
    "quantize to %(precision)s (%(engine)s): %(count)s× %(gpu)s from %(amount)s %(currency)s": (
        "квантовать до %(precision)s (%(engine)s): %(count)s× %(gpu)s от %(amount)s %(currency)s"
    ),
    "shorten the context to %(tokens)s tokens (the KV cache shrinks with it)": (
        "сократить контекст до %(tokens)s токенов (KV-кэш уменьшится вместе с ним)"
    ),
    "fine-tune with LoRA instead: %(count)s× %(gpu)s": "дообучать через LoRA: %(count)s× %(gpu)s",
    "without the ECC requirement %(gpu)s builds would fit": "без требования ECC подошли бы сборки на %(gpu)s",
    "no catalog build fits this workload; ask a sales engineer for a multi-node cluster": (
        "ни одна сборка из каталога не подходит; обратитесь к инженеру по продажам за многоузловым кластером"
    ),
    "remove %(count)s× %(gpu)s (%(why)s)": "убрать %(count)s× %(gpu)s (%(why)s)",
    "server airflow": "серверный обдув",
    # build rules: finding messages and fix details; estimator assumptions (Phrase in configurator/rules, estimate.py)
    "The build draws %(load)s W (components %(raw)s W + %(margin)s%% cooling margin) but %(have)s.": (
        "Сборка потребляет %(load)s Вт (компоненты %(raw)s Вт + %(margin)s%% запаса на охлаждение), но %(have)s."
    ),
    "%(count)s× PSU under %(redundancy)s at %(voltage)s V give %(usable)s W": (
        "%(count)s× БП при резервировании %(redundancy)s и напряжении %(voltage)s В дают %(usable)s Вт"
    ),
    "there are no PSUs": "блоков питания нет",
    "The PSUs run at %(share)s%% of their usable %(usable)s W under %(redundancy)s; keep the load below %(limit)s%%.": (
        "Блоки питания загружены на %(share)s%% от доступных %(usable)s Вт при резервировании "
        "%(redundancy)s; держите нагрузку ниже %(limit)s%%."
    ),
    "below %(limit)s %%": "нагрузка ниже %(limit)s %%",
    "add %(count)s× %(sku)s": "добавить %(count)s× %(sku)s",
    "add %(count)s× %(sku)s (%(why)s)": "добавить %(count)s× %(sku)s (%(why)s)",
    "replace psus with %(count)s× %(sku)s": "заменить блоки питания на %(count)s× %(sku)s",
    "replace psus with %(count)s× %(sku)s (%(why)s)": "заменить блоки питания на %(count)s× %(sku)s (%(why)s)",
    "set psu_redundancy %(mode)s (%(current)s cannot carry %(load)s W in %(bays)s bays)": (
        "выбрать резервирование БП %(mode)s (при %(current)s нагрузку %(load)s Вт не обеспечить, отсеков "
        "для БП: %(bays)s)"
    ),
    "under %(mode)s": "при резервировании %(mode)s",
    "PSUs of different models cannot share the load; install one model.": (
        "Блоки питания разных моделей не могут делить нагрузку; установите одну модель."
    ),
    "%(chassis)s takes %(kind)s PSUs, not %(wrong)s.": (
        "Платформа %(chassis)s рассчитана на блоки питания %(kind)s, а не %(wrong)s."
    ),
    "1 PSU does not fit the %(bays)s PSU bays of %(chassis)s.": (
        "1 блок питания не помещается в %(chassis)s (отсеков для БП: %(bays)s)."
    ),
    "%(count)s PSUs do not fit the %(bays)s PSU bays of %(chassis)s.": (
        "Блоков питания: %(count)s — столько не помещается в %(chassis)s (отсеков для БП: %(bays)s)."
    ),
    "%(chassis)s supports PSU redundancy %(modes)s, not %(redundancy)s.": (
        "Платформа %(chassis)s поддерживает резервирование БП %(modes)s, но не %(redundancy)s."
    ),
    "set psu_redundancy %(mode)s": "выбрать резервирование БП %(mode)s",
    "N+N redundancy needs an even number of PSUs; the build has %(count)s.": (
        "Для резервирования N+N нужно чётное число блоков питания; в сборке их %(count)s."
    ),
    "N+1 redundancy needs at least 2 PSUs; the build has 1.": (
        "Для резервирования N+1 нужно не меньше 2 блоков питания; в сборке он один."
    ),
    "%(psus)s run only on 200-240 V input; the site has %(voltage)s V.": (
        "%(psus)s: питание только от сети 200-240 В, а на площадке %(voltage)s В."
    ),
    "rated at 120 V": "с поддержкой 120 В",
    "set site_voltage 230 (a 200-240 V circuit)": "указать напряжение сети 230 В (линия 200-240 В)",
    "The GPUs need %(need)s %(kind)s power cables; the %(chassis)s power board provides %(have)s.": (
        "Видеокартам нужно кабелей питания %(kind)s: %(need)s; на плате питания %(chassis)s их %(have)s."
    ),
    "The GPUs need %(need)s %(kind)s power cables; the PSUs provide %(have)s.": (
        "Видеокартам нужно кабелей питания %(kind)s: %(need)s; у блоков питания их %(have)s."
    ),
    "%(count)s %(kind)s cables": "кабелей %(kind)s: %(count)s",
    "At the wall the workstation draws about %(wall)s W (%(load)s W at %(efficiency)s%% PSU "
    "efficiency, assumed); a 120 V/15 A circuit carries %(circuit_15a)s W continuous (80 %% rule), a "
    "dedicated 120 V/20 A circuit %(circuit_20a)s W.": (
        "От розетки рабочая станция потребляет около %(wall)s Вт (%(load)s Вт при КПД блока питания "
        "%(efficiency)s%%, допущение); линия 120 В/15 А выдерживает %(circuit_15a)s Вт длительной "
        "нагрузки (правило 80 %%), выделенная линия 120 В/20 А — %(circuit_20a)s Вт."
    ),
    "set site_voltage 230 (a 230 V/16 A circuit carries %(watts)s W continuous)": (
        "указать напряжение сети 230 В (линия 230 В/16 А выдерживает %(watts)s Вт длительной нагрузки)"
    ),
    "%(load)s W on %(usable)s W of ATX PSU: GPU power spikes (2-3× TDP for microseconds) can trip it; "
    "keep the average below %(share)s %% of the rating.": (
        "%(load)s Вт на %(usable)s Вт блока питания ATX: пиковые броски мощности видеокарт (2-3× TDP в "
        "течение микросекунд) могут вызвать его отключение; держите среднюю нагрузку ниже %(share)s %% "
        "номинала."
    ),
    "transient headroom": "запас на пиковые броски",
    "requires ECC": "требует ECC",
    "is marked production": "помечена как промышленная",
    "The workload %(why)s; %(gpu)s has no ECC memory.": "Нагрузка %(why)s; у %(gpu)s нет памяти с ECC.",
    "The workload %(why)s; %(memory)s is non-ECC memory.": "Нагрузка %(why)s; %(memory)s — память без ECC.",
    "The workload %(why)s; %(memory)s are non-ECC memory.": "Нагрузка %(why)s; %(memory)s — память без ECC.",
    "replace %(gpu)s with %(count)s× %(other)s (%(vram)s GB ECC)": (
        "заменить %(gpu)s на %(count)s× %(other)s (%(vram)s ГБ, ECC)"
    ),
    "ECC RDIMM platform": "платформа с памятью ECC RDIMM",
    "%(left)s GPUs fit a catalog PSU set under the same redundancy": (
        "для оставшихся видеокарт (%(left)s шт.) найдётся набор БП из каталога при том же резервировании"
    ),
    "%(left)s GPUs have cables": "кабелей хватит оставшимся видеокартам (%(left)s шт.)",
    "%(left)s GPUs stay within %(watts)s W": "оставшиеся видеокарты (%(left)s шт.) укладываются в %(watts)s Вт",
    "use chassis %(sku)s": "взять платформу %(sku)s",
    "use chassis %(sku)s (%(why)s)": "взять платформу %(sku)s (%(why)s)",
    "remove %(count)s× %(sku)s": "убрать %(count)s× %(sku)s",
    "replace %(bridge)s with %(count)s× %(sku)s": "заменить %(bridge)s на %(count)s× %(sku)s",
    "HGX baseboard with NVSwitch": "плата HGX с NVSwitch",
    "The build has no NVLink bridge connector; %(bridges)s cannot be fitted.": (
        "В сборке нет разъёма для моста NVLink; %(bridges)s установить нельзя."
    ),
    "%(gpus)s has no NVLink bridge connector; %(bridges)s cannot be fitted.": (
        "У видеокарты %(gpus)s нет разъёма для моста NVLink; %(bridges)s установить нельзя."
    ),
    "%(gpus)s have no NVLink bridge connector; %(bridges)s cannot be fitted.": (
        "У видеокарт %(gpus)s нет разъёма для моста NVLink; %(bridges)s установить нельзя."
    ),
    "%(bridge)s joins %(joins)s, not %(gpus)s.": "Мост %(bridge)s подходит для %(joins)s, но не для %(gpus)s.",
    "%(bridge)s would join different GPU models (%(gpus)s); bridged GPUs must be identical.": (
        "Мост %(bridge)s соединил бы разные модели видеокарт (%(gpus)s); видеокарты под одним мостом "
        "должны быть одинаковыми."
    ),
    "%(gpu)s links at most %(allowed)s GPUs; %(bridge)s is a %(ways)s-way bridge.": (
        "%(gpu)s: мостом NVLink соединяется не более %(allowed)s GPU; %(bridge)s — %(ways)s-way мост."
    ),
    "1 bridge set joins %(covered)s GPUs; the build has %(count)s× %(gpu)s (expected: %(expected)s).": (
        "1 комплект мостов соединяет %(covered)s GPU, а в сборке %(count)s× %(gpu)s (нужно: %(expected)s)."
    ),
    "1 bridge set joins %(covered)s GPUs; the build has %(count)s× %(gpu)s (expected: none).": (
        "1 комплект мостов соединяет %(covered)s GPU, а в сборке %(count)s× %(gpu)s (нужно: ни одного)."
    ),
    "%(sets)s bridge sets join %(covered)s GPUs; the build has %(count)s× %(gpu)s (expected: %(expected)s).": (
        "Комплектов мостов: %(sets)s, они соединяют %(covered)s GPU, а в сборке %(count)s× %(gpu)s "
        "(нужно: %(expected)s)."
    ),
    "%(sets)s bridge sets join %(covered)s GPUs; the build has %(count)s× %(gpu)s (expected: none).": (
        "Комплектов мостов: %(sets)s, они соединяют %(covered)s GPU, а в сборке %(count)s× %(gpu)s (нужно: ни одного)."
    ),
    "1 GPU of %(count)s× %(gpu)s has no NVLink bridge set and talks over PCIe.": (
        "1 GPU из %(count)s× %(gpu)s остаётся без комплекта мостов NVLink и обменивается данными через PCIe."
    ),
    "%(left)s GPUs of %(count)s× %(gpu)s have no NVLink bridge set and talk over PCIe.": (
        "%(left)s GPU из %(count)s× %(gpu)s остаются без комплекта мостов NVLink и обмениваются данными через PCIe."
    ),
    "1× %(gpu)s is left without an NVLink partner and talks to the others over PCIe.": (
        "1× %(gpu)s остаётся без пары по NVLink и обменивается данными с остальными через PCIe."
    ),
    "%(left)s× %(gpu)s are left without an NVLink partner and talk to the others over PCIe.": (
        "%(left)s× %(gpu)s остаются без пары по NVLink и обмениваются данными с остальными через PCIe."
    ),
    "%(count)s× %(gpu)s can be joined by NVLink (%(gbs)s GB/s) instead of PCIe.": (
        "%(count)s× %(gpu)s можно соединить через NVLink (%(gbs)s ГБ/с) вместо PCIe."
    ),
    "%(gpu)s links through NVSwitch on an HGX baseboard; %(chassis)s has none.": (
        "%(gpu)s соединяется через NVSwitch на плате HGX; в платформе %(chassis)s такой платы нет."
    ),
    "%(bridge)s spans %(spacing)s slots; the GPU slots of %(chassis)s are %(pitch)s slots apart.": (
        "Мост %(bridge)s рассчитан на шаг слотов %(spacing)s, а слоты видеокарт в %(chassis)s расположены "
        "с шагом %(pitch)s."
    ),
    "Tensor parallelism over %(count)s %(gpu)s runs its all-reduces over PCIe: about %(pcie)s "
    "tokens/s per user instead of %(nvlink)s with its NVLink bridge (%(gbs)s GB/s) (%(loss)s%% "
    "slower).": (
        "Тензорный параллелизм на %(count)s× %(gpu)s выполняет all-reduce через PCIe: около %(pcie)s "
        "ток/с на пользователя вместо %(nvlink)s с собственным мостом NVLink (%(gbs)s ГБ/с) (медленнее на "
        "%(loss)s %%)."
    ),
    "Tensor parallelism over %(count)s %(gpu)s runs its all-reduces over PCIe: about %(pcie)s "
    "tokens/s per user instead of %(nvlink)s with an NVLink 4 link (%(gbs)s GB/s) (%(loss)s%% "
    "slower).": (
        "Тензорный параллелизм на %(count)s× %(gpu)s выполняет all-reduce через PCIe: около %(pcie)s "
        "ток/с на пользователя вместо %(nvlink)s со связью NVLink 4 (%(gbs)s ГБ/с) (медленнее на %(loss)s "
        "%%)."
    ),
    "use chassis %(sku)s with cpu %(cpu)s": "взять платформу %(sku)s с процессором %(cpu)s",
    "use cpu %(sku)s": "взять процессор %(sku)s",
    "1 GPU gets its own x16/x8 link": "1 GPU получает собственное подключение x16/x8",
    "%(left)s GPUs get their own x16/x8 links": "%(left)s GPU получают собственные подключения x16/x8",
    "1 GPU fits the CPU lanes": "1 GPU укладывается в линии PCIe процессоров",
    "%(left)s GPUs fit the CPU lanes": "%(left)s GPU укладываются в линии PCIe процессоров",
    "1 GPU needs %(full)s lanes at full width; %(chassis)s wires %(slot_lanes)s GPU lanes in %(bays)s "
    "slots, not enough even at x8.": (
        "Для 1 GPU на полной ширине нужно линий PCIe: %(full)s; в %(chassis)s к слотам видеокарт (слотов: "
        "%(bays)s) подведено линий: %(slot_lanes)s — не хватает даже в режиме x8."
    ),
    "%(count)s GPUs need %(full)s lanes at full width; %(chassis)s wires %(slot_lanes)s GPU lanes in "
    "%(bays)s slots, not enough even at x8.": (
        "Для %(count)s GPU на полной ширине нужно линий PCIe: %(full)s; в %(chassis)s к слотам видеокарт "
        "(слотов: %(bays)s) подведено линий: %(slot_lanes)s — не хватает даже в режиме x8."
    ),
    "The GPU runs at x8: %(chassis)s wires %(slot_lanes)s GPU lanes for %(full)s at x16; host-to-GPU "
    "bandwidth halves on that card.": (
        "Видеокарта работает в режиме x8: в %(chassis)s к слотам видеокарт подведено линий: "
        "%(slot_lanes)s, а для x16 нужно %(full)s; пропускная способность между хостом и видеокартой "
        "падает вдвое."
    ),
    "1 of %(count)s GPUs runs at x8: %(chassis)s wires %(slot_lanes)s GPU lanes for %(full)s at x16; "
    "host-to-GPU bandwidth halves on that card.": (
        "1 из %(count)s GPU работает в режиме x8: в %(chassis)s к слотам видеокарт подведено линий: "
        "%(slot_lanes)s, а для x16 нужно %(full)s; пропускная способность между хостом и этой видеокартой "
        "падает вдвое."
    ),
    "%(x8)s of %(count)s GPUs run at x8: %(chassis)s wires %(slot_lanes)s GPU lanes for %(full)s at "
    "x16; host-to-GPU bandwidth halves on those cards.": (
        "%(x8)s из %(count)s GPU работают в режиме x8: в %(chassis)s к слотам видеокарт подведено линий: "
        "%(slot_lanes)s, а для x16 нужно %(full)s; пропускная способность между хостом и этими "
        "видеокартами падает вдвое."
    ),
    "%(per_uplink)s GPUs share the one x16 switch uplink to the CPUs: host-memory traffic (offload, "
    "data loading) is split between them.": (
        "%(per_uplink)s GPU делят единственный канал x16 от коммутатора к процессорам: обмен с памятью "
        "хоста (выгрузка, загрузка данных) делится между ними."
    ),
    "%(per_uplink)s GPUs share each x16 switch uplink to the CPUs (%(uplinks)s uplinks): host-memory "
    "traffic (offload, data loading) is split between them.": (
        "%(per_uplink)s GPU делят каждый канал x16 от коммутатора к процессорам (каналов: %(uplinks)s): "
        "обмен с памятью хоста (выгрузка, загрузка данных) делится между ними."
    ),
    "The GPUs sit behind PCIe switches: disable ACS on the root and switch downstream ports (or the "
    "NCCL P2P path hangs) and check `nvidia-smi topo -m` after installation.": (
        "Видеокарты подключены через коммутаторы PCIe: отключите ACS на корневых портах и нисходящих "
        "портах коммутаторов (иначе P2P-обмен NCCL зависает) и после установки проверьте `nvidia-smi topo "
        "-m`."
    ),
    "The build needs %(needed)s PCIe lanes (%(uplinks)s switch uplinks × 16 = %(gpu)s + NVMe %(nvme)s "
    "+ NIC %(nic)s); the CPUs wire %(available)s.": (
        "Сборке нужно линий PCIe: %(needed)s (каналы коммутаторов %(uplinks)s × 16 = %(gpu)s + NVMe "
        "%(nvme)s + NIC %(nic)s); процессоры дают %(available)s."
    ),
    "The build needs %(needed)s PCIe lanes (GPUs %(gpu)s + NVMe %(nvme)s + NIC %(nic)s); the CPUs "
    "wire %(available)s.": (
        "Сборке нужно линий PCIe: %(needed)s (видеокарты %(gpu)s + NVMe %(nvme)s + NIC %(nic)s); "
        "процессоры дают %(available)s."
    ),
    "%(chassis)s takes at most 1 GPU; the build has %(count)s.": (
        "Платформа %(chassis)s вмещает только 1 GPU, а в сборке GPU: %(count)s."
    ),
    "%(chassis)s takes at most %(most)s GPUs; the build has %(count)s.": (
        "Платформа %(chassis)s вмещает не более %(most)s GPU, а в сборке GPU: %(count)s."
    ),
    "%(gpu)s is %(width)s slots; %(chassis)s takes at most %(most)s slots.": (
        "Видеокарта %(gpu)s занимает слотов: %(width)s, а платформа %(chassis)s допускает не более %(most)s."
    ),
    "%(gpu)s is %(length)s mm; %(chassis)s takes at most %(most)s mm.": (
        "Длина видеокарты %(gpu)s — %(length)s мм, а платформа %(chassis)s вмещает карты длиной не более %(most)s мм."
    ),
    "%(gpu)s draws %(tdp)s W; %(chassis)s takes at most %(most)s W.": (
        "Видеокарта %(gpu)s потребляет %(tdp)s Вт, а платформа %(chassis)s охлаждает не более %(most)s Вт "
        "на видеокарту."
    ),
    "%(gpu)s is a %(kind)s GPU; %(chassis)s takes %(takes)s GPUs only.": (
        "%(gpu)s — видеокарта формата %(kind)s, а платформа %(chassis)s принимает только GPU формата %(takes)s."
    ),
    "%(gpu)s is a consumer card with a top-edge power connector; it does not fit the %(units)sU "
    "height of %(chassis)s.": (
        "%(gpu)s — потребительская видеокарта с разъёмом питания на верхней грани; она не помещается по "
        "высоте в платформу %(chassis)s высотой %(units)sU."
    ),
    "%(gpu)s is passively cooled and needs front-to-back server airflow; %(chassis)s has none.": (
        "Видеокарта %(gpu)s охлаждается пассивно и требует серверного обдува спереди назад; у платформы "
        "%(chassis)s его нет."
    ),
    "%(gpus)s are passively cooled and need front-to-back server airflow; %(chassis)s has none.": (
        "Видеокарты %(gpus)s охлаждаются пассивно и требуют серверного обдува спереди назад; у платформы "
        "%(chassis)s его нет."
    ),
    "%(count)s axial-fan consumer cards side by side: the inner cards breathe the outer cards' "
    "exhaust; expect throttling without strong chassis airflow.": (
        "Потребительских видеокарт с осевыми вентиляторами вплотную друг к другу: %(count)s — внутренние "
        "карты засасывают горячий выхлоп соседних; без мощного обдува платформы ожидайте троттлинга."
    ),
    "1 drive does not fit the %(bays)s drive bays of %(chassis)s.": (
        "1 накопитель не помещается в платформу %(chassis)s (отсеков для накопителей: %(bays)s)."
    ),
    "%(count)s drives do not fit the %(bays)s drive bays of %(chassis)s.": (
        "Накопители (%(count)s шт.) не помещаются в платформу %(chassis)s (отсеков для накопителей: %(bays)s)."
    ),
    "%(chassis)s is a %(kind)s but its rack units are missing; fix the catalog row.": (
        "Платформа %(chassis)s имеет тип %(kind)s, но её высота в юнитах не указана; исправьте строку каталога."
    ),
    "%(chassis)s is a %(kind)s but its rack units are %(units)sU; fix the catalog row.": (
        "Платформа %(chassis)s имеет тип %(kind)s, но её высота указана как %(units)sU; исправьте строку каталога."
    ),
    "replace %(old)s with %(count)s× %(new)s": "заменить %(old)s на %(count)s× %(new)s",
    "replace memory with %(count)s× %(sku)s": "заменить память на %(count)s× %(sku)s",
    "replace memory with %(count)s× %(sku)s (every channel alike)": (
        "заменить память на %(count)s× %(sku)s (все каналы одинаково)"
    ),
    "The build has no memory modules.": "В сборке нет модулей памяти.",
    "%(chassis)s takes ECC RDIMMs; %(dimm)s is an unbuffered ECC module.": (
        "Платформа %(chassis)s принимает только ECC RDIMM; %(dimm)s — небуферизованный модуль с ECC."
    ),
    "%(chassis)s takes ECC RDIMMs; %(dimm)s is an unbuffered non-ECC module.": (
        "Платформа %(chassis)s принимает только ECC RDIMM; %(dimm)s — небуферизованный модуль без ECC."
    ),
    "%(chassis)s takes %(takes)s modules, not %(kind)s (%(dimm)s).": (
        "Платформа %(chassis)s принимает модули %(takes)s, а не %(kind)s (%(dimm)s)."
    ),
    "ECC and non-ECC modules cannot be mixed: %(skus)s.": "Нельзя смешивать модули с ECC и без ECC: %(skus)s.",
    "Different memory modules (%(skus)s) break channel interleaving; use one model.": (
        "Разные модули памяти (%(skus)s) нарушают чередование каналов; используйте одну модель."
    ),
    "1 DIMM does not fit the %(slots)s usable slots of %(chassis)s.": (
        "1 модуль DIMM не помещается в доступные слоты платформы %(chassis)s (слотов: %(slots)s)."
    ),
    "%(count)s DIMMs do not fit the %(slots)s usable slots of %(chassis)s.": (
        "Модули DIMM (%(count)s шт.) не помещаются в доступные слоты платформы %(chassis)s (слотов: %(slots)s)."
    ),
    "1 DIMM on 1 socket of %(channels)s channels: %(usage)s; populate every channel alike.": (
        "1 модуль DIMM, 1 сокет, каналов: %(channels)s — %(usage)s; заполните все каналы одинаково."
    ),
    "1 DIMM on %(sockets)s sockets of %(channels)s channels: %(usage)s; populate every channel alike.": (
        "1 модуль DIMM, сокетов: %(sockets)s, каналов на сокет: %(channels)s — %(usage)s; заполните все "
        "каналы одинаково."
    ),
    "%(count)s DIMMs on 1 socket of %(channels)s channels: %(usage)s; populate every channel alike.": (
        "Модулей DIMM: %(count)s, 1 сокет, каналов: %(channels)s — %(usage)s; заполните все каналы одинаково."
    ),
    "%(count)s DIMMs on %(sockets)s sockets of %(channels)s channels: %(usage)s; populate every channel alike.": (
        "Модулей DIMM: %(count)s, сокетов: %(sockets)s, каналов на сокет: %(channels)s — %(usage)s; "
        "заполните все каналы одинаково."
    ),
    "%(used)s of %(channels)s channels used (~%(share)s%% of peak memory bandwidth)": (
        "занято каналов: %(used)s из %(channels)s (~%(share)s %% пиковой пропускной способности памяти)"
    ),
    "%(used)s of %(channels)s channels used, unevenly": "занято каналов: %(used)s из %(channels)s, неравномерно",
    "%(per_socket)s per socket, %(used)s of %(channels)s channels used (~%(share)s%% of peak memory bandwidth)": (
        "по %(per_socket)s на сокет, занято каналов: %(used)s из %(channels)s (~%(share)s %% пиковой "
        "пропускной способности памяти)"
    ),
    "%(per_socket)s per socket, %(used)s of %(channels)s channels used, unevenly": (
        "по %(per_socket)s на сокет, занято каналов: %(used)s из %(channels)s, неравномерно"
    ),
    "%(dpc)s DIMMs per channel: memory runs at %(slow)s MT/s instead of %(fast)s MT/s (%(cpu)s).": (
        "Модулей DIMM на канал: %(dpc)s — память работает на %(slow)s МТ/с вместо %(fast)s МТ/с (%(cpu)s)."
    ),
    "%(dpc)s DIMMs per channel: memory runs below %(fast)s MT/s (the 2 DPC speed of %(cpu)s is not in the catalog).": (
        "Модулей DIMM на канал: %(dpc)s — память работает медленнее %(fast)s МТ/с (скорости %(cpu)s при 2 "
        "DPC нет в каталоге)."
    ),
    "%(dpc)s DIMMs per channel: memory runs at a lower speed.": (
        "Модулей DIMM на канал: %(dpc)s — память работает на пониженной частоте."
    ),
    "%(ram)s GB of RAM for %(vram)s GB of VRAM (%(ratio)s×): less RAM than VRAM slows model loading "
    "and leaves no room for offload.": (
        "%(ram)s ГБ ОЗУ на %(vram)s ГБ видеопамяти (%(ratio)s×): когда ОЗУ меньше видеопамяти, модель "
        "загружается медленнее и не остаётся места для выгрузки (offload)."
    ),
    "%(ram)s GB of RAM for %(vram)s GB of VRAM (%(ratio)s×): common advice is at least 2× VRAM "
    "(reference 8-GPU systems ship 1.3-1.8×).": (
        "%(ram)s ГБ ОЗУ на %(vram)s ГБ видеопамяти (%(ratio)s×): обычно советуют не меньше 2× объёма "
        "видеопамяти (эталонные системы на 8 GPU поставляются с 1,3–1,8×)."
    ),
    "use cpu %(sku)s ×%(count)s": "поставить процессоры %(sku)s ×%(count)s",
    "The build has no CPU; %(chassis)s takes %(socket)s CPUs.": (
        "В сборке нет процессора; платформа %(chassis)s рассчитана на процессоры %(socket)s."
    ),
    "%(cpu)s is a %(socket)s CPU; %(chassis)s has a %(chassis_socket)s socket.": (
        "%(cpu)s — процессор под сокет %(socket)s, а у платформы %(chassis)s сокет %(chassis_socket)s."
    ),
    "%(chassis)s has 1 socket; the build has %(count)s CPUs.": (
        "У платформы %(chassis)s один сокет, а процессоров в сборке: %(count)s."
    ),
    "%(chassis)s has %(sockets)s sockets; the build has %(count)s CPUs.": (
        "Сокетов у платформы %(chassis)s: %(sockets)s, а процессоров в сборке: %(count)s."
    ),
    "%(cpu)s runs in at most 1 socket; the build puts %(count)s CPUs on one board.": (
        "%(cpu)s работает только в однопроцессорных системах, а в сборке на одной плате процессоров: %(count)s."
    ),
    "%(cpu)s runs in at most %(sockets)s sockets; the build puts %(count)s CPUs on one board.": (
        "Максимум сокетов для %(cpu)s: %(sockets)s, а в сборке на одной плате процессоров: %(count)s."
    ),
    "The CPUs of one board must be the same model: %(cpus)s.": (
        "Процессоры на одной плате должны быть одной модели: %(cpus)s."
    ),
    "%(chassis)s has %(sockets)s sockets and the build 1 CPU: slots and memory channels of the empty "
    "socket are not usable.": (
        "Сокетов у платформы %(chassis)s: %(sockets)s, а процессор в сборке один: слоты и каналы памяти "
        "пустого сокета не работают."
    ),
    "%(chassis)s has %(sockets)s sockets and the build %(count)s CPUs: slots and memory channels of "
    "the empty socket are not usable.": (
        "Сокетов у платформы %(chassis)s: %(sockets)s, а процессоров в сборке: %(count)s; слоты и каналы "
        "памяти пустого сокета не работают."
    ),
    "replace gpus with %(count)s× %(gpu)s (%(vram)s GB each)": (
        "заменить видеокарты на %(count)s× %(gpu)s (по %(vram)s ГБ)"
    ),
    "The workload needs %(need)s GiB of GPU memory; the build has no GPU.": (
        "Задаче нужно %(need)s ГиБ видеопамяти, а в сборке нет видеокарт."
    ),
    "add %(count)s× %(gpu)s (%(needed)s GPUs hold the model)": (
        "добавить %(count)s× %(gpu)s (модель помещается на видеокарты: %(needed)s шт.)"
    ),
    "use chassis %(chassis)s with %(count)s× %(gpu)s": "взять платформу %(chassis)s с %(count)s× %(gpu)s",
    "%(model)s at %(precision)s needs %(per_gpu)s GiB per GPU on %(count)s× %(gpu)s "
    "(%(parallelism)s); each has %(usable)s GiB usable.": (
        "%(model)s в %(precision)s на %(count)s× %(gpu)s (%(parallelism)s) требует %(per_gpu)s ГиБ на "
        "видеокарту, а у каждой доступно %(usable)s ГиБ."
    ),
    "About %(speed)s tokens/s per user on %(count)s× %(gpu)s with 1 concurrent user; the target is %(target)s.": (
        "Около %(speed)s ток/с на пользователя на %(count)s× %(gpu)s при одном пользователе; цель — %(target)s."
    ),
    "About %(speed)s tokens/s per user on %(count)s× %(gpu)s with %(users)s concurrent users; the "
    "target is %(target)s.": (
        "Около %(speed)s ток/с на пользователя на %(count)s× %(gpu)s (одновременных пользователей: "
        "%(users)s); цель — %(target)s."
    ),
    "%(engine)s runs on NVIDIA GPUs only; %(gpus)s cannot run it.": (
        "%(engine)s работает только на видеокартах NVIDIA; на %(gpus)s он не запустится."
    ),
    "use llama.cpp or vLLM (ROCm), or NVIDIA GPUs": "взять llama.cpp или vLLM (ROCm) либо видеокарты NVIDIA",
    "%(gpus)s use ROCm: check every library of the training stack (PyTorch, bitsandbytes, DeepSpeed, "
    "vLLM kernels) on this GPU before committing to it.": (
        "На %(gpus)s используется ROCm: прежде чем выбирать эту видеокарту, проверьте на ней каждую "
        "библиотеку стека для обучения (PyTorch, bitsandbytes, DeepSpeed, ядра vLLM)."
    ),
    "%(gpus)s use ROCm: check every library of the production service stack (PyTorch, bitsandbytes, "
    "DeepSpeed, vLLM kernels) on this GPU before committing to it.": (
        "На %(gpus)s используется ROCm: прежде чем выбирать эту видеокарту, проверьте на ней каждую "
        "библиотеку стека промышленного сервиса (PyTorch, bitsandbytes, DeepSpeed, ядра vLLM)."
    ),
    "PCIe %(gen)s.0 x%(lanes)s (%(bandwidth)s GB/s)": "PCIe %(gen)s.0 x%(lanes)s (%(bandwidth)s ГБ/с)",
    "NVLink/NVSwitch %(bandwidth)s GB/s": "NVLink/NVSwitch %(bandwidth)s ГБ/с",
    "%(precision)s = %(bits)s bits/weight": "%(precision)s = %(bits)s бит/вес",
    "%(precision)s = %(bpw)s bits/weight on this model (llama.cpp llama_tensor_get_type mix; "
    "%(published)s on Llama-3.1-8B, llama.cpp tools/quantize/README.md @311c2c9)": (
        "%(precision)s = %(bpw)s бит/вес на этой модели (смесь типов llama.cpp llama_tensor_get_type; "
        "%(published)s на Llama-3.1-8B, llama.cpp tools/quantize/README.md @311c2c9)"
    ),
    "QLoRA NF4 base = %(bits)s bits/weight with double quantization (arXiv 2305.14314 §3)": (
        "базовая модель QLoRA в NF4 = %(bits)s бит/вес с двойным квантованием (arXiv 2305.14314 §3)"
    ),
    "GGUF MXFP4_MOE: experts at %(experts)s bits/weight, other tensors Q8_0 = %(bpw)s bits/weight "
    "overall (llama.cpp llama_tensor_get_type)": (
        "GGUF MXFP4_MOE: эксперты по %(experts)s бит/вес, остальные тензоры в Q8_0 = %(bpw)s бит/вес в "
        "среднем (llama.cpp llama_tensor_get_type)"
    ),
    "MXFP4 experts at %(experts)s bits/weight, attention and embeddings in bf16 = %(bpw)s bits/weight "
    "overall (OpenAI gpt-oss checkpoint layout)": (
        "эксперты в MXFP4 по %(experts)s бит/вес, внимание и эмбеддинги в bf16 = %(bpw)s бит/вес в "
        "среднем (раскладка чекпойнта OpenAI gpt-oss)"
    ),
    "%(precision)s linear layers at %(linear)s bits/weight, embeddings/lm_head in 16 bits = %(bpw)s "
    "bits/weight overall": (
        "линейные слои в %(precision)s по %(linear)s бит/вес, эмбеддинги/lm_head в 16 битах = %(bpw)s бит/вес в среднем"
    ),
    "MLA latent %(layers)s layers × %(width)s × %(element)s B": (
        "латентный кэш MLA: слои (%(layers)s) × %(width)s × %(element)s Б"
    ),
    "2 × %(layers)s layers × %(kv_heads)s KV heads × %(head_dim)s × %(element)s B": (
        "2 × слои (%(layers)s) × KV-головы (%(kv_heads)s) × %(head_dim)s × %(element)s Б"
    ),
    "KV cache %(precision)s: %(shape)s = %(per_token)s KiB per token; %(tokens)s tokens × %(sequences)s sequence(s)": (
        "KV-кэш %(precision)s: %(shape)s = %(per_token)s КиБ на токен; длина контекста %(tokens)s × число "
        "последовательностей %(sequences)s"
    ),
    "8-bit AdamW: bf16 weights 2 + bf16 grads 2 + fp32 master 4 + 8-bit m, v 2 B/param (bitsandbytes, "
    "arXiv 2110.02861)": (
        "8-битный AdamW: веса bf16 2 + градиенты bf16 2 + мастер-копия fp32 4 + 8-битные m, v 2 "
        "Б/параметр (bitsandbytes, arXiv 2110.02861)"
    ),
    "8-bit AdamW": "8-битный AdamW",
    "mixed-precision AdamW: bf16 weights 2 + bf16 grads 2 + fp32 master, m, v 12 = 16 B/param (ZeRO "
    "arXiv 1910.02054 K=12; DeepSpeed's code counts 20 with fp32 grads)": (
        "AdamW со смешанной точностью: веса bf16 2 + градиенты bf16 2 + мастер-копия fp32, m, v 12 = 16 "
        "Б/параметр (ZeRO arXiv 1910.02054 K=12; код DeepSpeed считает 20 с градиентами в fp32)"
    ),
    "mixed-precision AdamW": "AdamW со смешанной точностью",
    "%(model)s: %(total)s B parameters, %(active)s B active per token (MoE) (%(source)s)": (
        "%(model)s: %(total)s млрд параметров, %(active)s млрд активных на токен (MoE) (%(source)s)"
    ),
    "%(model)s: %(total)s B parameters (%(source)s)": "%(model)s: %(total)s млрд параметров (%(source)s)",
    "Weights: %(words)s": "Веса: %(words)s",
    "CUDA context and runtime reserve %(reserve)s GiB per GPU (ollama reserves 457 MiB)": (
        "контекст CUDA и резерв среды выполнения — %(reserve)s ГиБ на GPU (ollama резервирует 457 МиБ)"
    ),
    "decode: η_bw = %(eta)s of %(bandwidth)s GB/s + %(tau)s µs per layer per step (%(engine)s, "
    "%(memory)s; %(source)s) → effective η = %(effective)s on %(moved)s GB read per token": (
        "генерация: η_bw = %(eta)s от %(bandwidth)s ГБ/с + %(tau)s мкс на слой за шаг (%(engine)s, "
        "%(memory)s; %(source)s) → эффективная η = %(effective)s при чтении %(moved)s ГБ на токен"
    ),
    "prefill at %(mfu)s%% of %(peak)s dense TFLOPS (2 × %(params)s B active params + attention FLOPs "
    "per token); TTFT = one prompt of context_tokens": (
        "обработка промпта (prefill) на %(mfu)s %% от %(peak)s плотных TFLOPS (2 × %(params)s млрд "
        "активных параметров + FLOPs внимания на токен); TTFT = один промпт длиной context_tokens"
    ),
    "%(sliding)s of %(layers)s layers use a %(window)s-token sliding window: their KV cache stops growing there": (
        "%(sliding)s из %(layers)s слоёв используют скользящее окно в %(window)s ток.: дальше их KV-кэш не растёт"
    ),
    "context %(tokens)s exceeds the model's %(window)s-token window: quality is not guaranteed past it": (
        "контекст %(tokens)s ток. больше окна модели в %(window)s ток.: за его пределами качество не гарантировано"
    ),
    "llama.cpp compute buffer for a %(ubatch)s-token ubatch with flash attention (%(size)s GiB incl. f32 logits)": (
        "вычислительный буфер llama.cpp для ubatch в %(ubatch)s ток. с flash attention (%(size)s ГиБ "
        "вместе с логитами f32)"
    ),
    "%(engine)s activation peak for %(tokens)s batched tokens and %(sequences)s sampled sequences (%(size)s GiB)": (
        "пик активаций %(engine)s при max_num_batched_tokens = %(tokens)s и max_num_seqs = %(sequences)s (%(size)s ГиБ)"
    ),
    "transformers prefill of the whole prompt at once (%(size)s GiB)": (
        "transformers обрабатывает весь промпт за один проход (%(size)s ГиБ)"
    ),
    "LoRA rank %(rank)s on every linear layer: %(trainable)s M trainable parameters (r·(d_in + d_out) "
    "each) with %(optimizer)s": (
        "LoRA ранга %(rank)s на каждом линейном слое: %(trainable)s млн обучаемых параметров (по r·(d_in "
        "+ d_out) на слой), оптимизатор — %(optimizer)s"
    ),
    "activations for %(batch)s × %(tokens)s tokens with gradient checkpointing (layer inputs 2·s·b·h "
    "kept, one layer recomputed), per tensor for SwiGLU + flash attention (Korthikanti et al. arXiv "
    "2205.05198)": (
        "активации для %(batch)s × %(tokens)s ток. с градиентным чекпойнтингом (хранятся входы слоёв "
        "2·s·b·h, пересчитывается один слой), по тензорам для SwiGLU + flash attention (Korthikanti et "
        "al. arXiv 2205.05198)"
    ),
    "activations for %(batch)s × %(tokens)s tokens without checkpointing, per tensor for SwiGLU + "
    "flash attention (Korthikanti et al. arXiv 2205.05198)": (
        "активации для %(batch)s × %(tokens)s ток. без чекпойнтинга, по тензорам для SwiGLU + flash "
        "attention (Korthikanti et al. arXiv 2205.05198)"
    ),
    "%(engine)s gpu_memory_utilization %(util)s: usable = %(util)s × %(vram)s GiB per GPU": (
        "%(engine)s gpu_memory_utilization %(util)s: доступно %(util)s × %(vram)s ГиБ на GPU"
    ),
    "usable = all %(vram)s GiB per GPU; the reserve is counted in the per-GPU need": (
        "доступны все %(vram)s ГиБ на GPU; резерв учтён в потребности каждого GPU"
    ),
    "data parallel over %(count)s GPUs, ZeRO stage %(stage)s: %(sharded)s": (
        "параллелизм по данным на %(count)s GPU, ZeRO стадии %(stage)s: %(sharded)s"
    ),
    "nothing sharded (DDP replicas)": "ничего не шардируется (реплики DDP)",
    "optimizer states sharded": "шардируются состояния оптимизатора",
    "optimizer states and gradients sharded": "шардируются состояния оптимизатора и градиенты",
    "weights, gradients and optimizer sharded": "шардируются веса, градиенты и оптимизатор",
    "training speed at %(mfu)s%% of %(tflops)s dense BF16 TFLOPS per GPU; decode figures do not apply": (
        "скорость обучения — %(mfu)s %% от %(tflops)s плотных TFLOPS BF16 на GPU; показатели генерации неприменимы"
    ),
    "tensor parallel over %(count)s GPUs via %(link)s: weights split, %(kv)s; 2 all-reduces per "
    "layer, ≥ %(floor)s µs each": (
        "тензорный параллелизм на %(count)s GPU через %(link)s: веса разделены, %(kv)s; 2 all-reduce на "
        "слой, каждый ≥ %(floor)s мкс"
    ),
    "MLA latent cache replicated on every GPU": "латентный кэш MLA целиком хранится на каждом GPU",
    "%(kv_heads)s KV heads split": "KV-головы (%(kv_heads)s) разделены",
    "%(kv_heads)s KV heads split (replicated: fewer heads than GPUs)": (
        "KV-головы (%(kv_heads)s) разделены (с репликацией: голов меньше, чем GPU)"
    ),
    "layer split over %(count)s GPUs: capacity adds up, single-stream speed does not (+%(hop)s ms per GPU hand-over)": (
        "разбиение по слоям на %(count)s GPU: объём памяти складывается, скорость одного потока — нет "
        "(+%(hop)s мс на каждую передачу между GPU)"
    ),
    "MoE: memory holds all %(experts)s experts; each token reads %(active)s of them; a batch of "
    "%(sequences)s reads the union of the experts its tokens pick": (
        "MoE: в памяти все эксперты (%(experts)s); каждый токен читает %(active)s из них; батч "
        "(последовательностей: %(sequences)s) читает объединение экспертов, выбранных его токенами"
    ),
    "llama.cpp keeps token_embd (%(size)s GiB) in system RAM, not in VRAM": (
        "llama.cpp держит token_embd (%(size)s ГиБ) в системной RAM, а не в VRAM"
    ),
    "%(precision)s weights cannot be trained; sized as bf16": (
        "веса в %(precision)s нельзя обучать; размер посчитан как для bf16"
    ),
    "fitted on %(rows)s llama.cpp rows of decode_calibration.csv (bench/accuracy.py)": (
        "подобрано по строкам llama.cpp (%(rows)s) из decode_calibration.csv (bench/accuracy.py)"
    ),
    "prior (no single-stream rows for this engine in decode_calibration.csv)": (
        "априорная оценка (в decode_calibration.csv нет однопоточных замеров для этого движка)"
    ),
}


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _read_string(lines: list[str], start: int) -> tuple[str, int]:
    """The (possibly multi-line) quoted string whose first line is lines[start]; returns it and the next index."""
    first = lines[start]
    parts = [first[first.index('"') :]]
    index = start + 1
    while index < len(lines) and lines[index].startswith('"'):
        parts.append(lines[index])
        index += 1
    return "".join(str(ast.literal_eval(part)) for part in parts), index


def fill(path: Path) -> list[str]:
    """Write the translations into the .po at `path`; returns the msgids that have none.

    Fuzzy flags and previous-msgid comments (makemessages' guesses) are dropped: a string is either
    translated here or reported missing.
    """
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    missing: list[str] = []
    index = 0
    msgid = ""
    context: str | None = None
    while index < len(lines):
        line = lines[index]
        if line.startswith("#,"):
            flags = [flag.strip() for flag in line[2:].split(",") if flag.strip() not in ("fuzzy", "")]
            if flags:
                out.append("#, " + ", ".join(flags))
            index += 1
            continue
        if line.startswith("#|"):
            index += 1
            continue
        if line.startswith("msgctxt "):
            context, index = _read_string(lines, index)
            out.append(f"msgctxt {_quote(context)}")
            continue
        if line.startswith("msgid "):
            msgid, index = _read_string(lines, index)
            out.append(f"msgid {_quote(msgid)}")
            continue
        if line.startswith("msgid_plural "):
            plural, index = _read_string(lines, index)
            out.append(f"msgid_plural {_quote(plural)}")
            forms = RU.get((context, msgid) if context else msgid)
            context = None
            while index < len(lines) and (lines[index].startswith("msgstr[") or lines[index].startswith('"')):
                index += 1
            if isinstance(forms, tuple):
                out.extend(f"msgstr[{n}] {_quote(form)}" for n, form in enumerate(forms))
            else:
                missing.append(msgid)
                out.extend(f'msgstr[{n}] ""' for n in range(4))
            continue
        if line.startswith("msgstr ") and msgid:
            _, index = _read_string(lines, index)
            translation = RU.get((context, msgid) if context else msgid)
            context = None
            if isinstance(translation, str):
                out.append(f"msgstr {_quote(translation)}")
            else:
                missing.append(msgid)
                out.append('msgstr ""')
            continue
        out.append(line)
        index += 1
    text = "\n".join(out) + "\n"
    text = re.sub(r'"Plural-Forms: [^"]*"\n(?:"[^"]*"\n)*', lambda _match: _PLURAL_FORMS, text, count=1)
    text = text.replace('"Language: \\n"', '"Language: ru\\n"')
    path.write_text(text, encoding="utf-8")
    return missing


_PLURAL_FORMS = (
    '"Plural-Forms: nplurals=4; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && "\n'
    '"n%10<=4 && (n%100<12 || n%100>14) ? 1 : n%10==0 || (n%10>=5 && n%10<=9) || "\n'
    '"(n%100>=11 && n%100<=14)? 2 : 3);\\n"\n'
)


if __name__ == "__main__":
    po = Path(__file__).resolve().parent / "ru" / "LC_MESSAGES" / "django.po"
    left = fill(po)
    for msgid in left:
        print(f"untranslated: {msgid!r}")
    sys.exit(1 if left else 0)

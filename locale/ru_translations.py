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

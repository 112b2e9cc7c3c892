#include "RunCharts.h"

#include "ChartColors.h"
#include "ChartExport.h"
#include "MetricRecords.h"
#include "ModeRegistry.h"
#include "PrivacyBudget.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QToolButton>
#include <cmath>

namespace hips {

using namespace chartcolors;

RunCharts::RunCharts(QWidget* parent)
    : QWidget(parent),
      m_accuracy(new LiveChart(tr("Test accuracy"), tr("accuracy"))),
      m_loss(new LiveChart(tr("Loss"), tr("loss"))),
      m_traffic(new LiveChart(tr("Traffic per tier"), tr("MB sent"))),
      m_throughput(new LiveChart(tr("Throughput"), tr("samples/s"))),
      m_ratio(new LiveChart(tr("Computing-time ratio: compute / (compute + communication)"), tr("ratio"))),
      m_steps(new LiveChart(tr("Local steps per worker and round"), tr("steps"))),
      m_staleness(new LiveChart(tr("Staleness of each push (asynchronous modes)"), tr("versions behind"))),
      m_cpu(new LiveChart(tr("CPU per process (100 % = one core)"), tr("% CPU"))),
      m_memory(new LiveChart(tr("Memory per process"), tr("MB resident"))),
      m_partyAcross(new LiveChart(tr("Traffic across parties, per party"), tr("MB sent"))),
      m_timeline(new WorkerTimeline),
      m_everyWorkerBox(new QCheckBox(tr("Every worker"))),
      m_xAxis(new QComboBox),
      m_trafficMode(new QComboBox),
      m_smoothing(new QSlider(Qt::Horizontal)),
      m_logLoss(new QCheckBox(tr("Log scale (loss)"))),
      m_facts(new QLabel),
      m_smoothingValue(new QLabel) {
    m_facts->setObjectName(QStringLiteral("facts"));
    m_facts->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_facts->setMargin(16);
    m_facts->setTextFormat(Qt::RichText);
    m_facts->setWordWrap(true);  // a failure's reason is one long line
    // The facts must not make their row taller than the others: a short window squashed the top row.
    m_facts->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    m_xAxis->addItems({tr("Round"), tr("Wall-clock time"), tr("Time since start")});
    m_xAxis->setObjectName(QStringLiteral("x_axis"));
    m_trafficMode->addItems({tr("Cumulative"), tr("Rate (MB/s)")});
    m_trafficMode->setObjectName(QStringLiteral("traffic_mode"));
    m_everyWorkerBox->setObjectName(QStringLiteral("every_worker"));
    m_everyWorkerBox->setToolTip(tr("A line per worker and per process; unticked, a line per party"));
    m_everyWorkerBox->setChecked(true);
    m_everyWorkerBox->hide();  // shown for runs of more than kWorkerLinesMax workers
    m_smoothing->setRange(0, 95);
    m_smoothing->setToolTip(tr("EMA smoothing (debiased, as TensorBoard's); the raw line stays, faint"));
    m_smoothing->setMaximumWidth(160);
    m_smoothingValue->setObjectName(QStringLiteral("smoothing_value"));
    m_smoothingValue->setMinimumWidth(m_smoothingValue->fontMetrics().horizontalAdvance(QStringLiteral("0.00")));
    auto* reset = new QPushButton(tr("Reset zoom"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("X axis:")));
    controls->addWidget(m_xAxis);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Smoothing:")));
    controls->addWidget(m_smoothing);
    controls->addWidget(m_smoothingValue);
    controls->addSpacing(12);
    controls->addWidget(m_logLoss);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Traffic:")));
    controls->addWidget(m_trafficMode);
    controls->addSpacing(12);
    controls->addWidget(m_everyWorkerBox);
    controls->addStretch();
    controls->addWidget(reset);

    auto* grid = new QGridLayout;
    grid->addWidget(m_accuracy, 0, 0);
    grid->addWidget(m_loss, 0, 1);
    grid->addWidget(m_traffic, 0, 2);
    grid->addWidget(m_throughput, 1, 0);
    grid->addWidget(m_ratio, 1, 1);
    grid->addWidget(m_facts, 1, 2);
    grid->addWidget(m_steps, 2, 0);
    grid->addWidget(m_staleness, 2, 1);
    auto* timeline = new QWidget;  // the timeline with an Export button under it, as every chart
    auto* timelineLayout = new QVBoxLayout(timeline);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    timelineLayout->setSpacing(0);
    timelineLayout->addWidget(m_timeline, 1);
    timelineLayout->addWidget(chartExportButton(
                                  timeline, [this] { return m_timeline->chart()->title(); },
                                  [this](const QString& format, const QString& path) {
                                      return format == QLatin1String("png") ? m_timeline->savePng(path) : m_timeline->saveCsv(path);
                                  }),
                              0, Qt::AlignRight);
    grid->addWidget(timeline, 2, 2);
    grid->addWidget(m_cpu, 3, 0);
    grid->addWidget(m_memory, 3, 1);
    grid->addWidget(m_partyAcross, 3, 2);
    // Every chart the same size, whatever its legend or labels ask for: 4 rows of 3.
    for (int i = 0; i < 4; ++i) grid->setRowStretch(i, 1);
    for (int i = 0; i < 3; ++i) grid->setColumnStretch(i, 1);
    // A line per worker: the names go in a column beside the plot, where eight of them fit.
    for (LiveChart* perWorker : {m_steps, m_staleness, m_cpu, m_memory, m_partyAcross})
        perWorker->chart()->legend()->setAlignment(Qt::AlignRight);
    // Below a legible size the grid scrolls instead of squashing every chart to a strip.
    auto* gridHolder = new QWidget;
    gridHolder->setLayout(grid);
    for (QWidget* w : std::initializer_list<QWidget*>{m_accuracy, m_loss, m_traffic, m_throughput, m_ratio, m_steps, m_staleness,
                                                      m_timeline, m_cpu, m_memory, m_partyAcross})
        w->setMinimumHeight(220);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(gridHolder);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(scroll, 1);

    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this](int i) {
        for (LiveChart* c : charts()) c->setXAxis(LiveChart::XAxis(i));
    });
    connect(m_smoothing, &QSlider::valueChanged, this, &RunCharts::applySmoothing);
    connect(m_logLoss, &QCheckBox::toggled, m_loss, &LiveChart::setLogY);
    connect(reset, &QPushButton::clicked, this, [this] {
        for (LiveChart* c : charts()) c->resetZoom();
    });
    connect(m_trafficMode, &QComboBox::currentIndexChanged, this, &RunCharts::applyTrafficMode);
    connect(m_everyWorkerBox, &QCheckBox::toggled, this, &RunCharts::setEveryWorker);
    // A crosshair synced across the charts of rounds and time (the staleness chart counts pushes).
    const QList<LiveChart*> synced{m_accuracy, m_loss, m_traffic, m_throughput, m_ratio, m_steps, m_cpu, m_memory, m_partyAcross};
    for (LiveChart* from : synced) {
        connect(from, &LiveChart::cursorAt, this, [synced, from](double x) {
            for (LiveChart* c : synced) c->setCrosshair(c == from ? std::nullopt : std::optional(x));
        });
        connect(from, &LiveChart::cursorLeft, this, [synced] {
            for (LiveChart* c : synced) c->setCrosshair(std::nullopt);
        });
    }
    clear();
    applySmoothing();  // its value shows from the start
}

// Smoothing for every chart but cumulative traffic: a running total is smooth already, and an
// average of it lags behind the bytes really sent.
void RunCharts::applySmoothing() {
    const double alpha = m_smoothing->value() / 100.0;
    m_smoothingValue->setText(QString::number(alpha, 'f', 2));
    for (LiveChart* c : charts()) c->setSmoothing(c == m_traffic && m_trafficMode->currentIndex() == 0 ? 0.0 : alpha);
}

void RunCharts::clear() {
    m_facts->setText(tr("<p style='color:#777'>No rounds yet. Start a run, or open one from the history.</p>"));
    m_rows.clear();
    m_wall.clear();
    m_colourOf.clear();
    m_runTraffic.reset();
    m_staleness->setTitle(tr("Staleness of each push (asynchronous modes)"));
    for (LiveChart* c : charts()) c->clear();
    m_accuracy->addLine(tr("test accuracy"), kAccuracy);
    m_accuracy->setTitle(tr("Test accuracy"));
    m_accuracy->setYTitle(tr("accuracy"));
    m_rmse = false;
    m_top5Line = -1;
    m_heldOutLines.clear();
    m_loss->addLine(tr("training loss"), kTrainLoss);
    m_loss->addLine(tr("test loss"), kTestLoss);
    m_inside = m_traffic->addLine(tr("inside parties"), kInside);
    m_across = m_traffic->addLine(tr("across parties"), kAcross);
    m_throughput->addLine(tr("samples/s"), kThroughput);
    m_ratio->addLine(tr("computing-time ratio"), kRatio);
    m_timeline->clear();
    m_comparisons.clear();
    m_privacy.reset();
    m_secureAggregation = false;
    clearPerNode();
}

void RunCharts::showRmse() {
    if (m_rmse) return;
    m_rmse = true;
    m_accuracy->setTitle(tr("Test RMSE (lower is better)"));
    m_accuracy->setYTitle(tr("RMSE"));
    m_accuracy->setLineName(0, tr("test RMSE"));
}

int RunCharts::lineOf(LiveChart* chart, QHash<QString, int>& lines, const QString& node) {
    static const QList<QColor> palette = {kAccuracy,
                                          kTrainLoss,
                                          kInside,
                                          kTestLoss,
                                          kAcross,
                                          kRatio,
                                          QColor(0xe3, 0x77, 0xc2),
                                          QColor(0x7f, 0x7f, 0x7f),
                                          QColor(0xbc, 0xbd, 0x22),
                                          kThroughput};
    auto it = lines.find(node);
    if (it == lines.end()) {  // "party1/worker0" as "party1/0": legends are narrow
        QString name = node;
        name.replace(QStringLiteral("/worker"), QStringLiteral("/"));
        const int colour = *m_colourOf.insert(node, m_colourOf.value(node, int(m_colourOf.size())));
        it = lines.insert(node, chart->addLine(name, palette[colour % palette.size()]));
    }
    return *it;
}

void RunCharts::setTopology(const Topology& topology) {
    Topology settled = topology;  // "auto" noise as the run sets it
    settlePrivacy(&settled);
    m_privacy = settled.training.privacy;
    m_secureAggregation = settled.training.secureAggregation;
    m_draws.emplace(std::move(settled));
    m_colourOf.clear();
    m_partyColourOf.clear();
    for (const Node& node : topology.nodes())
        if (node.kind == RoleKind::Worker) m_colourOf.insert(node.id, int(m_colourOf.size()));
    for (const Party& party : topology.parties) m_partyColourOf.insert(party.id, int(m_partyColourOf.size()));
    const bool many = topology.trainingWorkerCount() > kWorkerLinesMax;
    m_everyWorkerBox->setVisible(many);
    const QSignalBlocker quiet(m_everyWorkerBox);
    m_everyWorkerBox->setChecked(!many);
    setEveryWorker(!many);
    const ModePolicy mode = ModeRegistry::policy(topology.training.mode);
    if (mode.party != TierSync::AsPushesCome && mode.global != TierSync::AsPushesCome)
        m_staleness->setTitle(tr("Staleness: none in mode %1 (every push is of its round)").arg(topology.training.mode));
}

void RunCharts::setRunTraffic(quint64 inside, quint64 across) {
    m_runTraffic = std::pair{inside, across};
    if (!m_rows.isEmpty()) showFacts();
}

void RunCharts::addRecord(const QJsonObject& r, double wallMs, double elapsed) {
    m_timeline->addRecord(r);
    addPerNodeRecord(r, wallMs, elapsed);
    if (const auto train = metric::TrainRecord::from(r); train && train->localSteps)
        plotNodePoint({m_steps, train->node, double(train->round), wallMs, elapsed, double(*train->localSteps)});
    if (const auto score = metric::ScoreRecord::from(r); score && score->kind == metric::kPartyEval) {  // its own held-out rows
        const QString& node = score->node;
        if (score->rmse) showRmse();
        if (!m_heldOutLines.contains(node))
            m_heldOutLines.insert(node, m_accuracy->addLine(tr("%1 (own held-out data)").arg(node.section(QLatin1Char('/'), 0, 0)),
                                                            kParty[m_heldOutLines.size() % kParty.size()], Qt::DashLine));
        m_accuracy->append(m_heldOutLines.value(node), score->round, wallMs, elapsed, score->score);
    }
    if (const auto push = metric::AsyncPushRecord::from(r))  // x: the worker's (or party's) own push count, its round
        plotNodePoint({m_staleness, push->origin, 0, wallMs, elapsed, double(push->staleness)});
}

static void addTraffic(LiveChart* chart, int inside, int across, const RoundRow& row, const RoundRow* previous, double wallMs, bool rate) {
    auto mb = [](quint64 bytes) { return double(bytes) / 1e6; };
    if (!rate) {
        chart->append(inside, row.round, wallMs, row.elapsed, mb(row.bytesInside));
        chart->append(across, row.round, wallMs, row.elapsed, mb(row.bytesAcross));
        return;
    }
    const double dt = previous ? row.elapsed - previous->elapsed : row.elapsed;
    if (dt <= 0) return;
    chart->append(inside, row.round, wallMs, row.elapsed, (mb(row.bytesInside) - (previous ? mb(previous->bytesInside) : 0)) / dt);
    chart->append(across, row.round, wallMs, row.elapsed, (mb(row.bytesAcross) - (previous ? mb(previous->bytesAcross) : 0)) / dt);
}

void RunCharts::addRound(const RoundRow& row, double wallMs) {
    const RoundRow* previous = m_rows.isEmpty() ? nullptr : &m_rows.last();
    if (!std::isnan(row.testRmse)) showRmse();
    if (!std::isnan(row.testScore())) m_accuracy->append(0, row.round, wallMs, row.elapsed, row.testScore());
    if (!std::isnan(row.testTop5)) {  // (5 classes or more)
        if (m_top5Line < 0) m_top5Line = m_accuracy->addLine(tr("top-5 accuracy"), kTop5);
        m_accuracy->append(m_top5Line, row.round, wallMs, row.elapsed, row.testTop5);
    }
    if (row.trainReports > 0 && std::isfinite(row.trainLoss)) m_loss->append(0, row.round, wallMs, row.elapsed, row.trainLoss);
    if (!std::isnan(row.testLoss)) m_loss->append(1, row.round, wallMs, row.elapsed, row.testLoss);
    addTraffic(m_traffic, m_inside, m_across, row, previous, wallMs, m_trafficMode->currentIndex() == 1);
    m_throughput->append(0, row.round, wallMs, row.elapsed, row.samplesPerSecond);
    m_ratio->append(0, row.round, wallMs, row.elapsed, row.computeRatio());
    m_rows << row;
    m_wall << wallMs;
    showFacts();
}

void RunCharts::showFacts() {
    const RoundRow& row = m_rows.last();
    // The best so far: the highest accuracy, or a regression's lowest RMSE.
    double best = qQNaN();
    for (const RoundRow& r : m_rows)
        if (const double v = r.testScore(); !std::isnan(v) && (std::isnan(best) || (m_rmse ? v < best : v > best))) best = v;
    const QString accuracy = std::isnan(row.testScore()) ? QStringLiteral("-") : QString::number(row.testScore(), 'f', 4);
    // After the end, the run's own total, as `hips run`, the history and the report give it.
    const auto traffic = [this](quint64 byRound, std::optional<quint64> run) {
        const QString round = tr("%1 MB").arg(double(byRound) / 1e6, 0, 'f', 1);
        if (!run || *run == byRound) return round;
        return tr("%1 MB in the run (%2 by this round)").arg(double(*run) / 1e6, 0, 'f', 1).arg(round);
    };
    m_facts->setText(
        tr("<h3>Round %1</h3><table cellpadding='3'>"
           "<tr><td>Test %10</td><td><b>%2</b></td></tr>"
           "<tr><td>Best so far</td><td>%3</td></tr>"
           "<tr><td>Training loss</td><td>%4</td></tr>"
           "<tr><td>Inside parties</td><td>%5</td></tr>"
           "<tr><td>Across parties</td><td>%6</td></tr>"
           "<tr><td>Throughput</td><td>%7 samples/s</td></tr>"
           "<tr><td>Computing-time ratio</td><td>%8</td></tr>"
           "<tr><td>Elapsed</td><td>%9 s</td></tr></table>%11")
            .arg(row.round)
            .arg(accuracy, std::isnan(best) ? QStringLiteral("-") : QString::number(best, 'f', 4))
            .arg(row.trainReports > 0 ? QString::number(row.trainLoss, 'f', 4) : QStringLiteral("-"))  // (none trained: no loss)
            .arg(traffic(row.bytesInside, m_runTraffic ? std::optional(m_runTraffic->first) : std::nullopt),
                 traffic(row.bytesAcross, m_runTraffic ? std::optional(m_runTraffic->second) : std::nullopt))
            .arg(row.samplesPerSecond, 0, 'f', 0)
            .arg(row.computeRatio(), 0, 'f', 3)
            .arg(row.elapsed, 0, 'f', 1)
            .arg(m_rmse ? tr("RMSE") : tr("accuracy"), privacyFactHtml(row) + partyFactsHtml()));
}

void RunCharts::setLocalReference(const QString& name, const QList<LocalReferencePoint>& points) {
    const int line = m_accuracy->addLine(name, QColor(0x7f, 0x7f, 0x7f), Qt::DashLine);
    for (const LocalReferencePoint& p : points) m_accuracy->append(line, p.round, p.wallMs, p.elapsed, p.accuracy);
}

namespace {
QColor comparisonColour(int i) {  // darker than the run's own lines, each run its own
    static const QList<QColor> colours{QColor(0x55, 0x55, 0x55), QColor(0xbc, 0xbd, 0x22), QColor(0xe3, 0x77, 0xc2),
                                       QColor(0x17, 0x4a, 0x7e)};
    return colours[i % colours.size()];
}
}  // namespace

void RunCharts::addComparison(const QString& name, const QList<RoundRow>& rows, const QList<double>& wallMs) {
    const int index = int(m_comparisons.size());
    m_comparisons.append({name, rows, wallMs});
    const QColor colour = comparisonColour(index);
    const int accuracy = m_accuracy->addLine(name, colour, Qt::DashLine), loss = m_loss->addLine(name, colour, Qt::DashLine);
    const int throughput = m_throughput->addLine(name, colour, Qt::DashLine), ratio = m_ratio->addLine(name, colour, Qt::DashLine);
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const RoundRow& row = rows[i];
        const double wall = wallMs.value(i);
        if (!std::isnan(row.testScore())) m_accuracy->append(accuracy, row.round, wall, row.elapsed, row.testScore());
        if (row.trainReports > 0 && std::isfinite(row.trainLoss)) m_loss->append(loss, row.round, wall, row.elapsed, row.trainLoss);
        m_throughput->append(throughput, row.round, wall, row.elapsed, row.samplesPerSecond);
        m_ratio->append(ratio, row.round, wall, row.elapsed, row.computeRatio());
    }
    drawComparisonTraffic(m_comparisons.last(), index);
    for (LiveChart* c : {m_accuracy, m_loss, m_traffic, m_throughput, m_ratio}) c->redrawNow();
}

// Its traffic across parties (the tier that differs between runs), cumulative or as a rate.
void RunCharts::drawComparisonTraffic(const Comparison& c, int index) {
    const int line = m_traffic->addLine(tr("%1, across").arg(c.name), comparisonColour(index), Qt::DashLine);
    const bool rate = m_trafficMode->currentIndex() == 1;
    for (qsizetype i = 0; i < c.rows.size(); ++i) {
        const RoundRow& row = c.rows[i];
        const double mb = double(row.bytesAcross) / 1e6;
        if (!rate) {
            m_traffic->append(line, row.round, c.wallMs.value(i), row.elapsed, mb);
            continue;
        }
        const double before = i ? double(c.rows[i - 1].bytesAcross) / 1e6 : 0, dt = row.elapsed - (i ? c.rows[i - 1].elapsed : 0);
        if (dt > 0) m_traffic->append(line, row.round, c.wallMs.value(i), row.elapsed, (mb - before) / dt);
    }
}

void RunCharts::setLive(bool live) {
    for (LiveChart* c : charts()) c->setLive(live);
    if (live && m_rows.isEmpty())
        m_facts->setText(
            tr("<p style='color:#777'>The run is under way: its first round shows here as soon as it "
               "has trained.</p>"));
}

void RunCharts::setEnded(bool failed, const QString& reason, const QString& runDir) {
    setLive(false);
    if (!m_rows.isEmpty()) return;
    const QString logs = runDir.isEmpty() ? tr("The Run tab's log has every process's messages.")
                                          : tr("Each process's log is in %1.").arg((runDir + QStringLiteral("/logs")).toHtmlEscaped());
    m_facts->setText(failed ? tr("<p style='color:#b00'>The run failed before its first round: %1</p>").arg(reason.toHtmlEscaped()) +
                                  QStringLiteral("<p style='color:#777'>%1</p>").arg(logs)
                            : tr("<p style='color:#777'>The run was stopped before its first round.</p>"));
}

// A run that was to be taken up again (reattached, resumed) and was not: no longer "under way".
void RunCharts::setRefused(const QString& reason) {
    setLive(false);
    if (m_rows.isEmpty()) m_facts->setText(QStringLiteral("<p style='color:#b00'>%1</p>").arg(reason.toHtmlEscaped()));
}

// ε spent by the round shown, where the run is differentially private.
QString RunCharts::privacyFactHtml(const RoundRow& row) const {
    const QString secure = m_secureAggregation ? tr("<p>Secure aggregation: the global server sees only the parties' sum</p>") : QString();
    if (!m_privacy) return secure;
    return tr("<p>Privacy: <b>ε %1</b> (δ %2) spent by round %3, noise at the %4</p>")
               .arg(std::isnan(row.epsilon) ? m_draws->epsilonBy(row.round) : row.epsilon, 0, 'f', 3)  // (the controller's: restarts too)
               .arg(m_privacy->delta)
               .arg(row.round)
               .arg(m_privacy->atParty() ? tr("party servers") : tr("workers")) +
           secure;
}

QString RunCharts::factsText() const {
    return m_facts->text();
}

void RunCharts::applyTrafficMode() {
    m_traffic->clear();
    m_inside = m_traffic->addLine(tr("inside parties"), kInside);
    m_across = m_traffic->addLine(tr("across parties"), kAcross);
    const bool rate = m_trafficMode->currentIndex() == 1;
    m_traffic->setYTitle(rate ? tr("MB/s sent") : tr("MB sent"));
    for (int i = 0; i < m_rows.size(); ++i)
        addTraffic(m_traffic, m_inside, m_across, m_rows[i], i ? &m_rows[i - 1] : nullptr, m_wall[i], rate);
    for (int i = 0; i < m_comparisons.size(); ++i) drawComparisonTraffic(m_comparisons[i], i);
    applySmoothing();
}

}  // namespace hips

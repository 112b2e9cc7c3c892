#include "DeploymentTable.h"

#include "LiteralText.h"

#include <QHeaderView>

namespace hips {

DeploymentTable::DeploymentTable(QWidget* parent) : QTableWidget(0, ColumnCount, parent) {
    setObjectName(QStringLiteral("deployment"));
    setHorizontalHeaderLabels({tr("Host"), tr("Stage"), tr("Time"), tr("Result")});
    verticalHeader()->hide();
    horizontalHeader()->setStretchLastSection(true);
    horizontalHeader()->setSectionResizeMode(Stage, QHeaderView::ResizeToContents);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setWordWrap(true);
    setToolTip(
        tr("Each host's deployment: the agent is copied over SSH and started, then it completes a "
           "CURVE handshake with this controller"));
}

void DeploymentTable::reset(const QStringList& hosts) {
    setRowCount(0);
    m_clocks.clear();
    m_failed.clear();
    m_started.clear();
    for (const QString& h : hosts) {
        const int row = rowOf(h);
        item(row, Stage)->setText(tr("waiting"));
    }
}

int DeploymentTable::rowOf(const QString& host) {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, Host)->text() == host) return r;
    const int row = rowCount();
    insertRow(row);
    for (int c = 0; c < ColumnCount; ++c) setItem(row, c, new QTableWidgetItem);
    item(row, Host)->setText(host);
    m_clocks[host].start();
    return row;
}

void DeploymentTable::onProgress(const QString& host, const QString& stage) {
    const int row = rowOf(host);
    m_started.insert(host);
    item(row, Stage)->setText(stage);
    item(row, Seconds)->setText(tr("%1 s").arg(double(m_clocks[host].elapsed()) / 1000.0, 0, 'f', 1));
}

void DeploymentTable::onFinished(const QString& host, bool ok, const QString& error, double seconds) {
    const int row = rowOf(host);
    m_started.insert(host);
    item(row, Stage)->setText(ok ? tr("deployed") : tr("failed"));
    item(row, Seconds)->setText(tr("%1 s").arg(seconds, 0, 'f', 1));
    item(row, Result)->setText(ok ? tr("agent ready") : error);
    item(row, Result)->setToolTip(error.isEmpty() ? QString() : literalToolTip(error));  // (a remote host's output: text)
    const QColor color = ok ? QColor(0x2c, 0xa0, 0x2c) : QColor(0xd0, 0x30, 0x30);
    for (int c : {Stage, Result}) item(row, c)->setForeground(color);
    if (!ok) m_failed.insert(host);
    resizeRowToContents(row);
}

void DeploymentTable::markNotStarted(const QString& reason) {
    for (int row = 0; row < rowCount(); ++row) {
        if (m_started.contains(item(row, Host)->text())) continue;  // (its own stage says how far it got)
        item(row, Stage)->setText(tr("not started"));
        item(row, Result)->setText(reason);
        item(row, Result)->setToolTip(reason);
        for (int c : {Stage, Result}) item(row, c)->setForeground(QColor(0xd0, 0x30, 0x30));
        resizeRowToContents(row);
    }
}

QString DeploymentTable::stage(const QString& host) const {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, Host)->text() == host) return item(r, Stage)->text();
    return {};
}

QString DeploymentTable::result(const QString& host) const {
    for (int r = 0; r < rowCount(); ++r)
        if (item(r, Host)->text() == host) return item(r, Result)->text();
    return {};
}

}  // namespace hips

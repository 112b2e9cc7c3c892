#include "LogPane.h"

#include <QAbstractTableModel>
#include <QBrush>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTime>

namespace hips {

class LogModel : public QAbstractTableModel {
public:
    static constexpr int kMaxLines = 100000;
    struct Line {
        QString time, source, level, text;
    };

    void clear() {
        beginResetModel();
        m_lines.clear();
        endResetModel();
    }
    void append(Line line) {
        if (m_lines.size() >= kMaxLines) {  // drop the oldest tenth at once, not one per line
            beginRemoveRows({}, 0, kMaxLines / 10 - 1);
            m_lines.erase(m_lines.begin(), m_lines.begin() + kMaxLines / 10);
            endRemoveRows();
        }
        beginInsertRows({}, int(m_lines.size()), int(m_lines.size()));
        m_lines.append(std::move(line));
        endInsertRows();
    }
    const Line& line(int row) const { return m_lines[row]; }
    int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(m_lines.size()); }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : 4; }
    QVariant data(const QModelIndex& index, int role) const override {
        const Line& l = m_lines[index.row()];
        if (role == Qt::ForegroundRole) {
            if (l.level == QLatin1String("error")) return QBrush(QColor(0xc0, 0x20, 0x20));
            if (l.level == QLatin1String("warning")) return QBrush(QColor(0xa0, 0x60, 0x00));
            return {};
        }
        if (role != Qt::DisplayRole) return {};
        switch (index.column()) {
            case 0: return l.time;
            case 1: return l.source;
            case 2: return levelText(l.level);
            default: return l.text;
        }
    }
    static QString levelText(const QString& level) {  // (the filter goes by the level itself)
        if (level == QLatin1String("error")) return LogPane::tr("error");
        if (level == QLatin1String("warning")) return LogPane::tr("warning");
        if (level == QLatin1String("info")) return LogPane::tr("info");
        return level;
    }
    QVariant headerData(int section, Qt::Orientation o, int role) const override {
        if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
        return QStringList{LogPane::tr("Time"), LogPane::tr("Process"), LogPane::tr("Level"), LogPane::tr("Message")}.value(section);
    }

private:
    QList<Line> m_lines;
};

class LogFilter : public QSortFilterProxyModel {
public:
    QString process, level, text;
    void refilter() { invalidateRowsFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex&) const override {
        const LogModel::Line& l = static_cast<LogModel*>(sourceModel())->line(row);
        if (!process.isEmpty() && l.source != process) return false;
        if (!level.isEmpty() && l.level != level) return false;
        return text.isEmpty() || l.text.contains(text, Qt::CaseInsensitive);
    }
};

LogPane::LogPane(QWidget* parent)
    : QWidget(parent),
      m_model(new LogModel),
      m_filter(new LogFilter),
      m_process(new QComboBox),
      m_level(new QComboBox),
      m_search(new QLineEdit),
      m_view(new QTableView) {
    m_model->setParent(this);
    m_filter->setParent(this);
    m_filter->setSourceModel(m_model);
    m_level->addItem(tr("All levels"), QString());
    m_level->addItem(tr("Info"), QStringLiteral("info"));
    m_level->addItem(tr("Warnings"), QStringLiteral("warning"));
    m_level->addItem(tr("Errors"), QStringLiteral("error"));
    m_search->setPlaceholderText(tr("Filter text"));
    m_search->setClearButtonEnabled(true);
    m_view->setModel(m_filter);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setWordWrap(false);
    m_view->setColumnWidth(0, 70);
    m_view->setColumnWidth(1, 170);
    m_view->setColumnWidth(2, 60);

    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Log")));
    bar->addWidget(m_process);
    bar->addWidget(m_level);
    bar->addWidget(m_search, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_view);

    auto refilter = [this] {
        m_filter->process = m_process->currentData().toString();
        m_filter->level = m_level->currentData().toString();
        m_filter->text = m_search->text();
        m_filter->refilter();
    };
    connect(m_process, &QComboBox::currentIndexChanged, this, refilter);
    connect(m_level, &QComboBox::currentIndexChanged, this, refilter);
    connect(m_search, &QLineEdit::textChanged, this, refilter);
    QScrollBar* scroll = m_view->verticalScrollBar();
    connect(scroll, &QScrollBar::valueChanged, this, [this, scroll](int value) { m_follow = value >= scroll->maximum() - 2; });
    clear({});
}

void LogPane::clear(const QStringList& nodes) {
    m_model->clear();
    m_process->clear();
    m_process->addItem(tr("All processes"), QString());
    m_process->addItem(tr("controller"), QStringLiteral("controller"));
    for (const QString& n : nodes) m_process->addItem(n, n);
}

void LogPane::append(const QString& source, const QString& level, const QString& text) {
    m_model->append({QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), source, level, text});
    if (m_follow) m_view->scrollToBottom();
}

void LogPane::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (m_follow) m_view->scrollToBottom();
}

void LogPane::showOnly(const QString& node) {
    const int i = m_process->findData(node);
    m_process->setCurrentIndex(i < 0 ? 0 : i);
}

int LogPane::visibleLines() const {
    return m_filter->rowCount();
}

}  // namespace hips

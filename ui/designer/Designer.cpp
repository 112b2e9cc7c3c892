#include "Designer.h"

#include "DesignerScene.h"
#include "DesignerView.h"
#include "Palette.h"
#include "PropertyPanel.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QLabel>
#include <QListWidget>
#include <QCursor>
#include <QMenu>
#include <QToolTip>
#include <QSaveFile>
#include <QSplitter>
#include <QVBoxLayout>

namespace hips {

// One edit: the topology before and after. Snapshots make undo exact by construction.
class TopologyEditCommand : public QUndoCommand {
public:
    TopologyEditCommand(Designer* designer, const QString& text, Topology before, Topology after, QString mergeKey)
        : QUndoCommand(text), m_designer(designer), m_before(std::move(before)), m_after(std::move(after)),
          m_mergeKey(std::move(mergeKey)) {}
    void redo() override { m_designer->display(m_after); }
    void undo() override { m_designer->display(m_before); }
    int id() const override { return m_mergeKey.isEmpty() ? -1 : 1; }
    bool mergeWith(const QUndoCommand* other) override {
        auto* o = static_cast<const TopologyEditCommand*>(other);
        if (o->m_mergeKey != m_mergeKey) return false;
        m_after = o->m_after;
        return true;
    }

private:
    Designer* m_designer;
    Topology m_before, m_after;
    QString m_mergeKey;
};

Designer::Designer(QWidget* parent)
    : QWidget(parent), m_scene(new DesignerScene(this)), m_view(new DesignerView(m_scene)), m_palette(new Palette),
      m_properties(new PropertyPanel), m_issueList(new QListWidget) {
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(new QLabel(tr("Palette — drag onto the canvas")));
    leftLayout->addWidget(m_palette);
    m_palette->setMaximumWidth(220);

    auto* right = new QSplitter(Qt::Vertical);
    right->addWidget(m_properties);
    auto* issuesBox = new QWidget;
    auto* issuesLayout = new QVBoxLayout(issuesBox);
    issuesLayout->setContentsMargins(0, 0, 0, 0);
    issuesLayout->addWidget(new QLabel(tr("Validation")));
    issuesLayout->addWidget(m_issueList);
    m_issueList->setWordWrap(true);
    right->addWidget(issuesBox);
    right->setSizes({520, 200});

    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(m_view);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({170, 660, 360});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_scene, &DesignerScene::editRequested, this, [this](const QString& text, const Topology& after) { apply(text, after); });
    // A refused gesture says why where the user looks (at the pointer), and in the status bar.
    connect(m_scene, &DesignerScene::refused, this, [this](const QString& why) {
        QToolTip::showText(QCursor::pos(), why, m_view);
        Q_EMIT message(why);
    });
    connect(m_properties, &PropertyPanel::refused, this, &Designer::message);
    connect(m_properties, &PropertyPanel::editRequested, this,
            [this](const QString& text, const Topology& after, const QString& key) {
                apply(text, after, key);
                m_scene->selectElements({m_properties->element()});
            });
    connect(m_scene, &QGraphicsScene::selectionChanged, this,
            [this] { m_properties->show(m_topology, m_scene->selectedElements()); });
    connect(m_scene, &DesignerScene::editWanted, this, [this] { m_properties->focusFirstField(); });
    connect(m_scene, &DesignerScene::contextMenuWanted, this, [this](QPoint screenPos, QPointF scenePos) {
        QMenu* menu = contextMenu(scenePos);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(screenPos);
    });
    connect(m_issueList, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const ElementRef ref = edits::elementForIssuePath(m_topology, item->data(Qt::UserRole).toString());
        m_scene->selectElements({ref});
    });
    setTopology(Topology{});
}

// The scene's items go after the panels; their last selection changes must not reach them.
Designer::~Designer() { m_scene->disconnect(this); }

void Designer::setTopology(const Topology& topology) {
    m_undo.clear();
    display(topology);
    m_view->setAutoFit(true);
    m_view->fit();
}

bool Designer::openFile(const QString& path, QString* error) {
    const TopologyLoad load = TopologyReader::readFile(path);
    if (!load.draft) {  // not even well-formed: nothing to draw
        *error = load.errorText();
        return false;
    }
    setTopology(*load.draft);
    return true;
}

QByteArray Designer::json() const { return TopologyWriter::toJson(m_topology); }

bool Designer::saveFile(const QString& path, QString* error) {
    QSaveFile f(path);
    const QByteArray bytes = json();
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    m_undo.setClean();
    return true;
}

void Designer::apply(const QString& text, const Topology& after, const QString& mergeKey) {
    m_undo.push(new TopologyEditCommand(this, text, m_topology, after, mergeKey));
}

void Designer::display(const Topology& topology) {
    const bool wasValid = m_issues.isEmpty();
    m_topology = topology;
    // Exactly what `hips validate` and `hips run` check: the topology as its file would read.
    m_issues = TopologyReader::readJson(TopologyWriter::toJson(topology)).issues;
    m_scene->setTopology(m_topology, m_issues);
    m_properties->show(m_topology, m_scene->selectedElements());
    m_issueList->clear();
    for (const TopologyIssue& issue : m_issues) {
        auto* item = new QListWidgetItem(QIcon(QStringLiteral(":/icons/warning.svg")), issue.toString(), m_issueList);
        item->setData(Qt::UserRole, issue.path);
    }
    if (m_issues.isEmpty()) m_issueList->addItem(new QListWidgetItem(QIcon(QStringLiteral(":/icons/ok.svg")), tr("No problems: ready to run")));
    Q_EMIT topologyChanged();
    if (wasValid != m_issues.isEmpty()) Q_EMIT validityChanged(m_issues.isEmpty());
}

void Designer::deleteSelection() {
    const QList<ElementRef> selected = m_scene->selectedElements();
    if (selected.isEmpty()) return;
    Topology t = m_topology;
    edits::remove(t, selected);
    apply(selected.size() == 1 ? tr("Delete %1").arg(selected.first().key()) : tr("Delete %n items", nullptr, int(selected.size())), t);
}

void Designer::copySelection() {
    m_clipboard = m_scene->selectedElements();
    m_clipboardSource = m_topology;
    Q_EMIT message(tr("Copied %n items", nullptr, int(m_clipboard.size())));
}

void Designer::paste() {
    if (m_clipboard.isEmpty()) return;
    Topology t = m_topology;
    const QList<ElementRef> selected = m_scene->selectedElements();
    const QList<ElementRef> copies = edits::paste(t, m_clipboardSource, m_clipboard, selected.isEmpty() ? QString() : selected.first().party);
    if (copies.isEmpty()) return Q_EMIT message(tr("Nothing to paste: copy parties or worker groups"));
    apply(tr("Paste"), t);
    m_scene->selectElements(copies);
}

QMenu* Designer::contextMenu(QPointF scenePos) {
    auto* menu = new QMenu(m_view);
    if (!m_scene->selectedElements().isEmpty()) {
        QAction* edit = menu->addAction(tr("&Edit properties"), this, [this] { m_properties->focusFirstField(); });
        menu->setDefaultAction(edit);  // what a double click does
        menu->addSeparator();
    }
    QMenu* add = menu->addMenu(tr("&Add here"));
    for (const PaletteEntry& e : Palette::entries())
        add->addAction(QIcon(QStringLiteral(":/icons/%1.svg").arg(e.icon)), e.label, this,
                       [this, item = e.item, scenePos] { m_scene->dropPaletteItem(item, scenePos); });
    menu->addSeparator();
    menu->addActions(m_canvasActions);
    return menu;
}

void Designer::selectAll() {
    for (QGraphicsItem* i : m_scene->items())
        if (i->flags() & QGraphicsItem::ItemIsSelectable && !i->parentItem()) i->setSelected(true);
}

}  // namespace hips
